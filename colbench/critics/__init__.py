"""Critic studies a user runs on their own critics: :mod:`colbench.critics.analysis` (``colbench
critic-analysis``: held-out ranking accuracy of critics with / without training-time information, on
synthetic tasks or a trajectory file) and :mod:`colbench.critics.ranking` (``colbench critic-ranking``:
critics ranking sampled candidate actions of real rollouts against their true values). Both import
torch; this package does not."""
