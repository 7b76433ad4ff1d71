"""Run by ``tests/test_zero3_one_process.py`` under a 2-process ZeRO-3 launch (CPU ranks):
``python zero3_one_process.py MODEL_DIR RESULT_PREFIX``. Each process writes what it saw to
``RESULT_PREFIX.rank<k>.json``.

1. Once the launch's accelerator exists, a model loaded on every process is partitioned over them
   (each holds none of a weight's elements locally); inside
   :func:`colbench.agents.sharding.loaded_whole` the main process loads the model alone, whole, while
   the other waits -- and the launch's DeepSpeed config is registered with transformers again
   afterwards.
2. A full fine-tune :class:`~colbench.agents.trainer_base.TrainableLM` that has not trained yet (as
   SWEET-RL's policy in its candidate stage): both processes enter ``alone()``, the main process
   alone computes log-probs twice (the other none), then both take a training step on the sharded
   model."""
from __future__ import annotations

import json
import sys


def main() -> int:
    model_dir, prefix = sys.argv[1:3]
    import deepspeed.ops

    deepspeed.ops.__compatible_ops__["deepspeed_shm_comm"] = False  # its build takes minutes; gloo carries the gathers
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM
    from transformers.integrations import is_deepspeed_zero3_enabled

    from colbench.agents.sharding import loaded_whole, make_accelerator

    acc = make_accelerator()
    seen: dict = {"zero3_before": is_deepspeed_zero3_enabled()}
    shared = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)  # on every process
    seen["partitioned_local_numel"] = sum(p.numel() for p in shared.parameters())
    seen["partitioned_full_numel"] = sum(getattr(p, "ds_numel", p.numel()) for p in shared.parameters())
    if acc.is_main_process:
        with loaded_whole():
            seen["zero3_inside"] = is_deepspeed_zero3_enabled()
            alone = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
        saved = load_file(f"{model_dir}/model.safetensors")
        state = alone.state_dict()
        seen["whole_numel"] = sum(p.numel() for p in alone.parameters())
        seen["equal_to_saved"] = all(torch.equal(state[k], v) for k, v in saved.items())
    acc.wait_for_everyone()
    seen["zero3_after"] = is_deepspeed_zero3_enabled()

    from colbench.agents.trainer_base import TrainableLM

    lm = TrainableLM(acc, model_dir, full_finetune=True, learning_rate=1e-3)
    ids = lm.tokenizer("the main process calls the model on its own", return_tensors="pt")["input_ids"]
    batch = {"input_ids": ids, "attention_mask": torch.ones_like(ids),
             "loss_mask": torch.ones(1, ids.shape[1] - 1, dtype=torch.long)}
    with torch.no_grad(), lm.alone():
        if acc.is_main_process:  # the other process makes no call in between
            seen["alone_logps"] = [lm.token_logps(batch)[0].tolist() for _ in range(2)]
    loss = -lm.token_logps(batch).mean()  # both processes: the sharded model, its hooks back
    seen["sharded_loss"] = loss.item()
    lm.backward(loss)
    lm.flush()
    if acc.is_main_process:
        with torch.no_grad():
            seen["whole_logps"] = torch.log_softmax(alone(input_ids=ids).logits[0, :-1].float(), -1).gather(
                1, ids[0, 1:, None])[:, 0].tolist()
    with open(f"{prefix}.rank{acc.process_index}.json", "w") as f:
        json.dump(seen, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
