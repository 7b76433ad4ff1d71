"""Visual similarity of two page screenshots: the paper's CLIP score and an offline default.

::

    from colbench_env.evaluation.similarity import similarity, VisualSimilarity, CLIPSimilarity
    s = similarity(shot_a, shot_b)                      # "visual": no download, in [0, 1]
    s = similarity(shot_a, shot_b, metric="clip")       # the paper's metric (needs CLIP weights)
    clip = CLIPSimilarity("openai/clip-vit-base-patch32", device="cpu")
    scores = clip.batch([(a1, b1), (a2, b2)])           # build once, reuse

Images may be ``PIL.Image`` objects (any mode; converted to RGB), ``HxWx3`` uint8 numpy arrays, or
paths of image files.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

__all__ = ["similarity", "make_similarity", "VisualSimilarity", "CLIPSimilarity", "METRICS", "DEFAULT_CLIP_MODEL"]

DEFAULT_CLIP_MODEL = "openai/clip-vit-base-patch32"
METRICS = ("visual", "clip")


def _as_rgb(img, name: str = "image") -> Image.Image:
    """``img`` as an RGB PIL image; a clear error for anything else."""
    if isinstance(img, Image.Image):
        return img if img.mode == "RGB" else img.convert("RGB")
    if isinstance(img, (str, os.PathLike)):
        path = Path(img)
        if not path.is_file():
            raise FileNotFoundError(f"{name}: no such image file: {path}")
        with Image.open(path) as im:
            return im.convert("RGB")
    if isinstance(img, np.ndarray):
        if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8 or min(img.shape[:2]) < 1:
            raise ValueError(f"{name}: a numpy image must be HxWx3 uint8, got shape {img.shape} dtype {img.dtype}")
        return Image.fromarray(img, "RGB")
    raise TypeError(f"{name} must be a PIL.Image, an HxWx3 uint8 numpy array or an image path, "
                    f"got {type(img).__name__}")


def _box_mean(x: np.ndarray, r: int) -> np.ndarray:
    """Mean of ``x`` over the (2r+1)x(2r+1) window around each pixel (edges replicated)."""
    k = 2 * r + 1
    p = np.pad(x, r, mode="edge")
    c = np.cumsum(np.cumsum(p, axis=0), axis=1)
    c = np.pad(c, ((1, 0), (1, 0)))
    s = c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]
    return s / (k * k)


def _block_sum(x: np.ndarray, b: int) -> np.ndarray:
    """Sum of ``x`` (H x W [x C]) over non-overlapping b x b blocks; H and W must be multiples of b."""
    h, w = x.shape[:2]
    return x.reshape(h // b, b, w // b, b, *x.shape[2:]).sum(axis=(1, 3))


@dataclass(frozen=True)
class VisualSimilarity:
    """Offline perceptual similarity of two screenshots, in [0, 1]; needs no model.

    Both images are resized to ``width`` pixels wide (aspect kept), and the shorter is padded at the
    bottom with white (the canvas colour of a page) to the taller one's height. The score is the mean
    of three terms, each in [0, 1] and 1 for identical images:

    * **colour layout** -- the page is cut into ``block`` x ``block`` blocks; in each, the colours are
      quantised to ``bins`` levels per channel and the two blocks' colour histograms compared by
      histogram intersection; averaged over blocks. Sees backgrounds, colour bars, images, where they are.
    * **structure** -- SSIM of the grayscale images (7x7 windows), averaged with weights equal to the
      local variance of either image (information-weighted SSIM). Regions blank in both images carry
      no weight, so it measures whether the text/edges/shapes of one page are where the other has them;
      a blank page scores ~0 against a page with content.
    * **content placement** -- the gradient energy ("ink": text, borders, image detail) of each image
      summed over blocks, and the two maps compared by 1 - Bray-Curtis distance, averaged over three
      scales: ``4*block`` blocks, ``16*block`` blocks and the whole page (where it is the ratio-like
      agreement of the total amount of detail). Tolerant to small shifts; 1 when both pages are blank,
      0 against a blank page.

    An identical page scores 1; a different page with content in similar places and a similar palette
    scores higher than a blank page does. Deterministic and symmetric.

    Attributes:
        width: common width in pixels the screenshots are resized to (>= 4 * block).
        block: side of the colour blocks in pixels at that width.
        bins: quantisation levels per colour channel for the histograms (2..32).
    """

    width: int = 256
    block: int = 8
    bins: int = 4

    def __post_init__(self):
        for name, lo in (("width", 16), ("block", 2), ("bins", 2)):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < lo:
                raise ValueError(f"VisualSimilarity.{name} must be an int >= {lo}, got {v!r}")
        if self.bins > 32:
            raise ValueError(f"VisualSimilarity.bins must be <= 32, got {self.bins}")
        if self.width < 4 * self.block:
            raise ValueError(f"VisualSimilarity.width ({self.width}) must be >= 4 * block ({4 * self.block})")

    # -- pieces (public so that they can be inspected and tested) ----------------------------------
    def prepare(self, a, b) -> tuple[np.ndarray, np.ndarray]:
        """Both images as float32 RGB arrays in [0, 1] of the same shape (see the class docstring)."""
        ims = [_as_rgb(a, "img_a"), _as_rgb(b, "img_b")]
        arrs = []
        for im in ims:
            h = max(1, round(im.height * self.width / im.width))
            arrs.append(np.asarray(im.resize((self.width, h), Image.Resampling.BOX), dtype=np.float32) / 255.0)
        unit = 4 * self.block
        height = max(x.shape[0] for x in arrs)
        height = -(-height // unit) * unit  # a multiple of the coarse block
        return tuple(np.pad(x, ((0, height - x.shape[0]), (0, 0), (0, 0)), constant_values=1.0) for x in arrs)

    def colour_layout(self, x: np.ndarray, y: np.ndarray) -> float:
        """Mean per-block colour-histogram intersection of two prepared images."""
        n = self.bins
        hx, hy = (self._block_hist(z, n) for z in (x, y))
        inter = np.minimum(hx, hy).sum(axis=-1) / float(self.block * self.block)
        return float(inter.mean())

    def _block_hist(self, z: np.ndarray, n: int) -> np.ndarray:
        """Per-block colour histograms, shape (blocks, n**3), counts."""
        q = np.minimum((z * n).astype(np.int64), n - 1)
        code = (q[..., 0] * n + q[..., 1]) * n + q[..., 2]
        h, w = code.shape
        b = self.block
        rows = (np.arange(h) // b)[:, None]
        cols = (np.arange(w) // b)[None, :]
        block_id = rows * (w // b) + cols
        k = n ** 3
        nblocks = (h // b) * (w // b)
        counts = np.bincount((block_id * k + code).ravel(), minlength=nblocks * k)
        return counts.reshape(nblocks, k).astype(np.float32)

    @staticmethod
    def _gray(z: np.ndarray) -> np.ndarray:
        return z @ np.array([0.299, 0.587, 0.114], dtype=np.float32)

    def structure(self, x: np.ndarray, y: np.ndarray) -> float:
        """Information-weighted grayscale SSIM of two prepared images, clipped to [0, 1]."""
        gx, gy = self._gray(x).astype(np.float64), self._gray(y).astype(np.float64)
        c1, c2 = 0.01 ** 2, 0.03 ** 2
        mx, my = _box_mean(gx, 3), _box_mean(gy, 3)
        vx = np.maximum(_box_mean(gx * gx, 3) - mx * mx, 0.0)
        vy = np.maximum(_box_mean(gy * gy, 3) - my * my, 0.0)
        cxy = _box_mean(gx * gy, 3) - mx * my
        ssim = ((2 * mx * my + c1) * (2 * cxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
        w = vx + vy
        total = w.sum()
        if total <= 1e-12:  # both images flat everywhere: plain SSIM (luminance only)
            return float(np.clip(ssim.mean(), 0.0, 1.0))
        return float(np.clip((ssim * w).sum() / total, 0.0, 1.0))

    def content_placement(self, x: np.ndarray, y: np.ndarray) -> float:
        """Mean over three scales of 1 - Bray-Curtis distance between the gradient-energy maps of two
        prepared images: ``4*block`` blocks, ``16*block`` blocks, and the whole page."""
        ex, ey = self._energy(x), self._energy(y)
        scores = []
        for level in range(3):
            total = ex.sum() + ey.sum()
            scores.append(1.0 if total <= 1e-9 else 1.0 - np.abs(ex - ey).sum() / total)
            if level == 0:  # 4x4 groups of blocks (the map zero-padded to a multiple of 4)
                h, w = ex.shape
                pad = ((0, -h % 4), (0, -w % 4))
                ex, ey = _block_sum(np.pad(ex, pad), 4), _block_sum(np.pad(ey, pad), 4)
            else:  # the whole page
                ex, ey = ex.sum(keepdims=True), ey.sum(keepdims=True)
        return float(np.mean(scores))

    def _energy(self, z: np.ndarray) -> np.ndarray:
        g = self._gray(z)
        dx = np.zeros_like(g)
        dy = np.zeros_like(g)
        dx[:, 1:] = np.abs(np.diff(g, axis=1))
        dy[1:, :] = np.abs(np.diff(g, axis=0))
        return _block_sum(dx + dy, 4 * self.block)

    def terms(self, a, b) -> dict[str, float]:
        """The three terms of the score (see the class docstring)."""
        x, y = self.prepare(a, b)
        return {"colour_layout": self.colour_layout(x, y), "structure": self.structure(x, y),
                "content_placement": self.content_placement(x, y)}

    def __call__(self, a, b) -> float:
        """Similarity of two screenshots in [0, 1] (1: identical after resizing)."""
        t = self.terms(a, b)
        return float(np.clip(sum(t.values()) / len(t), 0.0, 1.0))

    def batch(self, pairs) -> list[float]:
        """``[self(a, b) for a, b in pairs]``."""
        return [self(a, b) for a, b in _pairs(pairs)]


def _pairs(pairs) -> list[tuple]:
    out = []
    for i, p in enumerate(pairs):
        if not isinstance(p, (tuple, list)) or len(p) != 2:
            raise ValueError(f"pairs[{i}] must be a pair (img_a, img_b), got {type(p).__name__}")
        out.append((p[0], p[1]))
    return out


class CLIPSimilarity:
    """Cosine similarity of CLIP image embeddings of two screenshots (the paper's frontend metric).

    Each screenshot goes through the model's ``CLIPImageProcessor`` as is (by default: shortest side
    resized to 224, then a 224x224 centre crop, so for a tall full-page screenshot CLIP sees a band
    around the middle of the page), then ``model.get_image_features``; the score is the cosine of the
    two embeddings, in [-1, 1] (1 for identical images).

    Args:
        model_name_or_path: a Hugging Face model id or a local folder holding a CLIP model and its image
            processor config. Default ``"openai/clip-vit-base-patch32"``; loading it needs the weights in
            the local Hugging Face cache or network access to the Hub.
        device: torch device for the model (``"cpu"``, ``"cuda"``...).
        model: an already built ``CLIPModel`` (then ``model_name_or_path`` is ignored for the weights).
        processor: an already built ``CLIPImageProcessor`` (default: loaded from ``model_name_or_path``).
        batch_size: images per forward pass in :meth:`batch`.
        local_files_only: passed to ``from_pretrained`` (True: never touch the network).

    Raises:
        OSError: the model or processor cannot be loaded; the message says where it looked and that
            ``metric="visual"`` needs no download.
    """

    def __init__(self, model_name_or_path: str | os.PathLike = DEFAULT_CLIP_MODEL, device: str = "cpu", *,
                 model=None, processor=None, batch_size: int = 16, local_files_only: bool = False):
        import torch
        from transformers import CLIPImageProcessor, CLIPModel

        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
        self.model_name_or_path = str(model_name_or_path)
        self.batch_size = batch_size
        self.device = torch.device(device)
        try:
            if model is None:
                model = CLIPModel.from_pretrained(self.model_name_or_path, local_files_only=local_files_only)
            if processor is None:
                processor = CLIPImageProcessor.from_pretrained(self.model_name_or_path,
                                                               local_files_only=local_files_only)
        except (OSError, ValueError) as e:
            raise OSError(
                f"cannot load the CLIP model/image processor {self.model_name_or_path!r} ({e}). Download it "
                f"once with network access (it is cached by Hugging Face), pass a local folder, or use "
                f"metric='visual', which needs no model.") from e
        if not hasattr(model, "get_image_features"):
            raise TypeError(f"model must be a CLIP model with get_image_features(), got {type(model).__name__}")
        self.model = model.to(self.device).eval()
        self.processor = processor

    def embed(self, images) -> "torch.Tensor":
        """L2-normalised image embeddings, one row per image (float32, on the CPU)."""
        import torch

        ims = [_as_rgb(im, f"images[{i}]") for i, im in enumerate(images)]
        rows = []
        with torch.inference_mode():
            for s in range(0, len(ims), self.batch_size):
                inputs = self.processor(images=ims[s:s + self.batch_size], return_tensors="pt")
                pixels = inputs["pixel_values"].to(self.device, dtype=next(self.model.parameters()).dtype)
                out = self.model.get_image_features(pixel_values=pixels)
                emb = out if isinstance(out, torch.Tensor) else out.pooler_output  # transformers 4 / 5
                rows.append(torch.nn.functional.normalize(emb.float(), dim=-1).cpu())
        if not rows:
            return torch.zeros((0, 0))
        return torch.cat(rows)

    def __call__(self, a, b) -> float:
        """Cosine similarity of the CLIP embeddings of two screenshots."""
        return self.batch([(a, b)])[0]

    def batch(self, pairs) -> list[float]:
        """Similarities of many pairs, embedding the images in batches of ``batch_size``."""
        pairs = _pairs(pairs)
        if not pairs:
            return []
        emb = self.embed([im for p in pairs for im in p])
        cos = (emb[0::2] * emb[1::2]).sum(dim=-1).clamp(-1.0, 1.0)
        return [float(c) for c in cos]


def similarity(img_a, img_b, metric: str = "visual", **kwargs) -> float:
    """Similarity of two screenshots.

    Args:
        img_a, img_b: PIL images, HxWx3 uint8 arrays or image paths.
        metric: ``"visual"`` (:class:`VisualSimilarity`, offline, in [0, 1]) or ``"clip"``
            (:class:`CLIPSimilarity`, the paper's metric, cosine in [-1, 1]).
        **kwargs: passed to the metric's constructor. A CLIP model is loaded on every call: to score
            many pairs build one :class:`CLIPSimilarity` and call it (or its ``batch``).
    """
    return make_similarity(metric, **kwargs)(img_a, img_b)


def make_similarity(metric: str = "visual", **kwargs):
    """The similarity callable ``(img, img) -> float`` named ``metric``: ``"visual"``
    (:class:`VisualSimilarity`) or ``"clip"`` (:class:`CLIPSimilarity`, by default
    :data:`DEFAULT_CLIP_MODEL`); ``kwargs`` go to its constructor."""
    if metric == "visual":
        return VisualSimilarity(**kwargs)
    if metric == "clip":
        return CLIPSimilarity(**kwargs)
    raise ValueError(f"unknown similarity metric {metric!r}; expected one of {', '.join(METRICS)}")
