"""The crafter simulator as this project runs it: the patched engine (`engine`), a gymnasium
environment with initial conditions and per-step events (`env.CrafterEnv`), and readers of the
world state (`state`). It knows nothing of tasks; `mineclip.tasks` builds on it."""

from mineclip.extras import require

require("crafter", "gymnasium", feature="the crafter simulator (mineclip.sim)")
