"""``colbench critic-ranking``: on real rollouts, critics rank ``N`` sampled candidate first actions of
held-out states; each candidate's true value comes from continuing it to the end. Pairwise ranking
accuracy and best-of-N value per critic, with bootstrap intervals over tasks. Every stage resumes
from ``--out-dir``; a resume that changes a setting its files were made with is refused.

Python: :func:`colbench.critics.ranking.run` with a :class:`colbench.critics.ranking.RankingConfig`
(the stages are documented there); this module only parses the command line.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from colbench.cli.run import JoinURLs
from colbench.critics import ranking
from colbench.errors import StageFailed

__all__ = ["add_arguments", "main"]

PROG = "colbench critic-ranking"


def add_arguments(p: argparse.ArgumentParser) -> None:
    d = ranking.RankingConfig()
    p.add_argument("--out-dir", default=d.out_dir, help=f"where every stage writes and resumes from ({d.out_dir})")
    p.add_argument("--policy", default=d.policy, help="policy and critic base: smollm2 or a local model directory")
    p.add_argument("--policy-base-url", default=None, action=JoinURLs,
                   help="generate the policy's turns (collection, candidates, continuations) on this OpenAI-compatible "
                        "server, which knows the policy by --policy (smollm2: its local path); several: repeat the "
                        "option or separate with commas. The critics train here")
    p.add_argument("--n-train-tasks", type=int, default=d.n_train_tasks, help="training tasks collected here")
    p.add_argument("--train-offset", type=int, default=d.train_offset,
                   help="skip the first training tasks (the pipeline's; pass its rollouts with --extra-trajectories)")
    p.add_argument("--rollouts-per-task", type=int, default=d.rollouts_per_task, help="k rollouts per training task")
    p.add_argument("--rollout-temperature", type=float, default=d.rollout_temperature,
                   help="sampling temperature of the training rollouts collected here")
    p.add_argument("--extra-trajectories", nargs="*", default=[], help="scored training rollouts to add (jsonl)")
    p.add_argument("--n-test-tasks", type=int, default=d.n_test_tasks, help="held-out tasks (one state each)")
    p.add_argument("--n-candidates", type=int, default=d.n_candidates, help="N candidate actions per state")
    p.add_argument("--candidate-temperature", type=float, default=d.candidate_temperature,
                   help="sampling temperature of the N candidate first actions")
    p.add_argument("--n-continuations", type=int, default=d.n_continuations, help="M continuations per candidate")
    p.add_argument("--continue-temperature", type=float, default=d.continue_temperature,
                   help="the policy's temperature when it finishes a candidate's episode")
    p.add_argument("--episodes-in-flight", type=int, default=d.episodes_in_flight,
                   help="episodes in flight, each advancing on its own; a local policy batches their turns")
    p.add_argument("--critic-epochs", type=int, default=d.critic_epochs, help="training epochs of every critic")
    p.add_argument("--value-head-epochs", type=int, default=None,
                   help="the value head's regression epochs (default: --critic-epochs; a regression head from "
                        "zero needs more steps than a Bradley-Terry LoRA)")
    p.add_argument("--critic-learning-rate", type=float, default=d.critic_learning_rate,
                   help="AdamW learning rate of every critic")
    p.add_argument("--critic-lora-r", type=int, default=d.critic_lora_r, help="LoRA rank of every critic (alpha = 2r)")
    p.add_argument("--critic-batch-size", type=int, default=d.critic_batch_size,
                   help="trajectory pairs per SWEET critic step (the value head takes twice as many single examples)")
    p.add_argument("--critic-pairs", default=d.critic_pairs, choices=("all_ordered", "best_vs_lower"),
                   help="which rollout pairs train the SWEET critics (colbench.agents.sweet_rl.critic_pairs)")
    p.add_argument("--critic-turns", default=d.critic_turns, choices=("all", "first"),
                   help="train the critics on whole rollouts or on each rollout's first action (final reward)")
    p.add_argument("--critic-context", default=d.critic_context, choices=("agent", "short"),
                   help="critics' context: the agent's prompt, or a one-line instruction (fewer tokens)")
    p.add_argument("--beta", type=float, default=d.beta, help="SWEET advantage scale beta")
    p.add_argument("--max-length", type=int, default=d.max_length, help="longest critic context")
    p.add_argument("--critics", nargs="+", default=list(ranking.CRITICS), choices=ranking.CRITICS, help="critics to train and compare")
    p.add_argument("--stages", nargs="+", default=list(ranking.STAGES), choices=ranking.STAGES,
                   help="run only these stages (the others' outputs are read from --out-dir)")
    p.add_argument("--max-turns", type=int, default=d.max_turns, help="agent turns per episode")
    p.add_argument("--max-new-tokens", type=int, default=d.max_new_tokens, help="tokens per agent turn")
    p.add_argument("--seed", type=int, default=d.seed, help="seeds sampling, critic training and the random critic")
    p.add_argument("--bootstrap-resamples", type=int, default=d.bootstrap_resamples,
                   help="bootstrap replicates of the 95 %% intervals over tasks")


def main(args: argparse.Namespace) -> int:
    try:
        cfg = ranking.RankingConfig(out_dir=args.out_dir, policy=args.policy, policy_base_url=args.policy_base_url,
                            n_train_tasks=args.n_train_tasks,
                            train_offset=args.train_offset, rollouts_per_task=args.rollouts_per_task,
                            rollout_temperature=args.rollout_temperature,
                            extra_trajectories=tuple(args.extra_trajectories), n_test_tasks=args.n_test_tasks,
                            n_candidates=args.n_candidates, candidate_temperature=args.candidate_temperature,
                            n_continuations=args.n_continuations, continue_temperature=args.continue_temperature,
                            episodes_in_flight=args.episodes_in_flight, critic_epochs=args.critic_epochs,
                            value_head_epochs=args.value_head_epochs,
                            critic_learning_rate=args.critic_learning_rate, critic_lora_r=args.critic_lora_r,
                            critic_batch_size=args.critic_batch_size, critic_pairs=args.critic_pairs, beta=args.beta,
                            critic_turns=args.critic_turns, critic_context=args.critic_context,
                            max_length=args.max_length, critics=tuple(args.critics), stages=tuple(args.stages), max_turns=args.max_turns,
                            max_new_tokens=args.max_new_tokens, seed=args.seed,
                            bootstrap_resamples=args.bootstrap_resamples)
        if cfg.policy != "smollm2" and not Path(cfg.policy).is_dir():
            raise ValueError(f"--policy: {cfg.policy!r} is neither 'smollm2' nor a local model directory")
        result = ranking.run(cfg)
    except (ValueError, OSError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except StageFailed as e:  # a server failed: the finished work is kept, a rerun retries the rest
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    if result:
        print(ranking.markdown(result))
    else:  # stages without a report (e.g. ``--stages continue``): their files are written
        print(f"{PROG}: stages {', '.join(cfg.stages)} done in {cfg.out_dir}; no report (run --stages report)")
    return 0
