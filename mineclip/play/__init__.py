"""Scripted play on the task suite and the data made from it: agents, recorded and labelled
trajectories, the narrator, narrated training clips, and demonstrations for difficulty scores."""

from mineclip.extras import require

require("crafter", "gymnasium", "av", feature="scripted play and recording (mineclip.play)")
