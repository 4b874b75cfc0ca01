"""The pictures' episode is played with the first-person controls alone, by a planner on the map."""

from mineclip.sim.env import CrafterEnv
from mineclip.sim.gallery import errand_action
from mineclip.sim.view import action_id


def test_a_planner_collects_wood_with_first_person_controls():
    env = CrafterEnv(init={"time": "noon"}, view="first_person")
    env.reset(seed=1)
    names = []
    for _ in range(30):
        names.append(errand_action(env, "tree"))
        env.step(action_id("first_person", names[-1]))
        if env.player.inventory["wood"]:
            break
    assert env.player.inventory["wood"] == 1 and {"move_forward", "do"} <= set(names)



def test_the_pictures_are_written_as_a_png_and_an_animated_gif(tmp_path, monkeypatch):
    import numpy as np
    from PIL import Image

    from mineclip.sim import gallery

    frames = [np.full((8, 12, 3), i * 40, np.uint8) for i in range(3)]
    monkeypatch.setattr(gallery, "moments_image", lambda: frames[0])
    monkeypatch.setattr(gallery, "episode_frames", lambda: frames)
    gallery.main(str(tmp_path))
    assert Image.open(tmp_path / "views.png").size == (12, 8)
    gif = Image.open(tmp_path / "views_episode.gif")
    assert gif.n_frames == 3 and gif.info["duration"] in (120, 130)  # 8 frames a second, in GIF's 10-ms units
