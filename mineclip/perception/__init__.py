"""MP5's active perception with the learned model as the Percipient: conditions as data, the
perception API, the active-perception agent (Patroller), and the MP5-style evaluation."""
