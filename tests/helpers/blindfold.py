"""The world's maps raising while an agent decides: the check that an agent (the Seeker, the process
agent) reads only its observation and its perceiver's answers, never the environment."""

from mineclip.tasks.env import CrafterTaskEnv


class Forbidden:
    """Stands in for a map of the world while the agent decides: any use of it fails the test."""

    def __init__(self, name):
        object.__setattr__(self, "_name", name)

    def _fail(self, *args, **kwargs):
        raise AssertionError(f"the agent read the world's {object.__getattribute__(self, '_name')}")

    __getattr__ = __getitem__ = __iter__ = __len__ = __array__ = __contains__ = __bool__ = _fail
    __eq__ = __lt__ = __int__ = __float__ = __call__ = _fail


class GuardedEnv(CrafterTaskEnv):
    """The task's env, remembered so that the guarded agent can hide its world while deciding
    (monkeypatch the agent module's `CrafterTaskEnv` with it)."""

    last = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        GuardedEnv.last = self


def guarded(agent_class):
    """A subclass of `agent_class` whose `act(obs, sight)` runs while every map of the last
    GuardedEnv's world (and the env's state) raises on use; `calls` counts its decisions."""

    class Guarded(agent_class):
        calls = 0

        def act(self, obs, sight):
            env = GuardedEnv.last
            world = env.world
            hidden = dict(vars(world))
            kept = {name: vars(env)[name] for name in ("context", "core", "first_person")}
            try:
                for name in hidden:
                    setattr(world, name, Forbidden(f"world.{name}"))
                for name in kept:
                    vars(env)[name] = Forbidden(f"env.{name}")
                type(self).calls += 1
                return super().act(obs, sight)
            finally:
                for name, value in hidden.items():
                    setattr(world, name, value)
                vars(env).update(kept)

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{agent_class.__name__}"
    return Guarded
