"""colbench: ColBench environments and SWEET-RL agents (Zhou et al. 2025, arXiv 2503.15478)."""
from setuptools import find_packages, setup

CORE = [
    "gymnasium>=1.0",
    "pettingzoo>=1.24",
    "numpy>=1.24",
    "tqdm>=4.60",
]
LM = [
    "torch>=2.1",
    "transformers>=4.45",
    "gguf>=0.10",
    "safetensors>=0.4",
]
FRONTEND = ["selenium>=4.15", "pillow>=9.0", "psutil>=5.9"]
TRAIN = [
    "torch>=2.1",
    "peft>=0.10",
    "trl>=0.12",
    "accelerate>=0.30",
    "bitsandbytes>=0.43",
]
BENCH = ["matplotlib>=3.5", "scikit-learn>=1.2"]
DEV = ["pytest>=7", "pytest-timeout>=2"]

setup(
    name="colbench",
    version="0.1.0",
    description="ColBench multi-turn collaboration environments (Gymnasium/PettingZoo) and SWEET-RL agents",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.10",
    packages=find_packages(include=["colbench_env*", "agents*", "wrappers*", "benchmarks*"]),
    package_data={"colbench_env": ["data/*/*.jsonl", "data/*.jsonl"], "benchmarks": ["configs/*"]},
    include_package_data=True,
    install_requires=CORE + LM + FRONTEND + BENCH,
    extras_require={
        "frontend": FRONTEND,
        "train": TRAIN,
        "bench": BENCH,
        "dev": DEV,
        "all": sorted(set(FRONTEND + TRAIN + BENCH + DEV)),
    },
    entry_points={"console_scripts": ["colbench=benchmarks.cli:main"]},
)
