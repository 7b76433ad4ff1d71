"""Run by ``tests/test_zero3_loaded_whole.py`` under a 2-process ZeRO-3 launch (CPU ranks):
``python zero3_loaded_whole.py MODEL_DIR RESULT_PREFIX``.

Once the launch's accelerator exists, a model loaded on every process is partitioned over them (each
holds none of a weight's elements locally); inside :func:`colbench.agents.sharding.loaded_whole` the
main process loads the model alone, whole, while the other waits -- and the launch's DeepSpeed config
is registered with transformers again afterwards. Each process writes what it saw to
``RESULT_PREFIX.rank<k>.json``."""
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
    with open(f"{prefix}.rank{acc.process_index}.json", "w") as f:
        json.dump(seen, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
