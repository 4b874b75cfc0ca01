"""The crafter simulator as this project runs it: the patched engine (`engine`), a gymnasium
environment with initial conditions and per-step events (`env.CrafterEnv`), readers of the world
state (`state`), the first-person renderer (`firstperson`) and the choice of view with its
controls (`view`). It knows nothing of tasks; `mineclip.tasks` builds on it."""

from mineclip.extras import require

require("crafter", "gymnasium", "numba", feature="the crafter simulator (mineclip.sim)")
