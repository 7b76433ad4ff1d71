"""Visual similarity of screenshots: the offline default and the CLIP code path, on real renders."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from colbench_env.evaluation.offline_assets import TAILWIND_CDN_URL
from colbench_env.evaluation.render import Renderer
from colbench_env.evaluation.similarity import CLIPSimilarity, VisualSimilarity, similarity

pytestmark = pytest.mark.timeout(120)

CDN = f'<link href="{TAILWIND_CDN_URL}" rel="stylesheet">'

LANDING = f"""<html><head>{CDN}</head><body class="bg-white font-sans">
<nav class="bg-indigo-600 text-white px-8 py-4 flex justify-between items-center">
  <span class="text-2xl font-bold">BrightBank</span>
  <div class="space-x-6"><a href="#">Accounts</a><a href="#">Loans</a><a href="#">Cards</a><a href="#">Contact</a></div>
</nav>
<section class="px-8 py-16 flex items-center gap-10">
  <div class="w-1/2"><h1 class="text-5xl font-extrabold text-gray-900 mb-6">{{headline}}</h1>
  <p class="text-lg text-gray-600 mb-8">Open an account in minutes, track your spending and save automatically with smart goals.</p>
  <a class="{{button}} text-white px-6 py-3 rounded-lg font-semibold" href="#">Get started</a></div>
  <img class="w-1/2 rounded-xl shadow-lg" src="https://picsum.photos/id/48/600/400">
</section>
<section class="bg-gray-100 px-8 py-12 grid grid-cols-3 gap-6">
  <div class="bg-white p-6 rounded-lg shadow"><h3 class="text-xl font-bold mb-2">No fees</h3><p class="text-gray-600">Zero monthly fees on every checking account.</p></div>
  <div class="bg-white p-6 rounded-lg shadow"><h3 class="text-xl font-bold mb-2">Instant transfers</h3><p class="text-gray-600">Send money to friends in seconds, any time.</p></div>
  <div class="bg-white p-6 rounded-lg shadow"><h3 class="text-xl font-bold mb-2">Savings goals</h3><p class="text-gray-600">Round up purchases and watch your savings grow.</p></div>
</section>
<footer class="bg-gray-800 text-gray-300 text-center py-6">&copy; 2024 BrightBank. All rights reserved.</footer>
</body></html>"""

BLOG = f"""<html><head>{CDN}</head><body class="bg-white">
<header class="border-b px-10 py-6 flex items-center justify-between">
  <h1 class="text-3xl font-serif font-bold text-gray-800">The Green Kitchen</h1>
  <input class="border rounded px-3 py-1" placeholder="Search recipes">
</header>
<main class="px-10 py-8 flex gap-8">
  <article class="w-2/3">
    <img class="w-full mb-6" src="https://picsum.photos/800/300">
    <h2 class="text-2xl font-bold mb-3 text-green-700">Spring vegetable risotto</h2>
    <p class="text-gray-700 mb-4">A creamy risotto with asparagus, peas and lemon zest. Ready in thirty minutes and perfect for a weeknight dinner with friends.</p>
    <p class="text-gray-700 mb-4">Start by warming the stock, then toast the rice in olive oil until the edges turn translucent. Add wine, stir, and ladle in the stock a little at a time.</p>
    <h2 class="text-2xl font-bold mb-3 mt-8 text-green-700">Roasted carrot soup</h2>
    <p class="text-gray-700">Sweet roasted carrots blended with ginger and coconut milk make a warming bowl for chilly evenings.</p>
  </article>
  <aside class="w-1/3 bg-green-50 p-6 rounded">
    <h3 class="font-bold text-lg mb-4">Popular</h3>
    <ul class="space-y-3 text-green-800"><li>Lentil salad</li><li>Mushroom tacos</li><li>Berry smoothie bowl</li><li>Chickpea curry</li></ul>
  </aside>
</main>
</body></html>"""


@pytest.fixture(scope="module")
def shots():
    pages = {
        "landing": LANDING.replace("{headline}", "Banking that grows with you").replace("{button}", "bg-indigo-600"),
        "landing_edit": LANDING.replace("{headline}", "Your money, simplified").replace("{button}", "bg-green-600"),
        "blog": BLOG,
        "empty": "",
    }
    with Renderer(pool_size=2) as r:
        imgs = r.render_many(list(pages.values()))
        again = r.render(pages["landing"])
    out = dict(zip(pages, imgs))
    out["landing_again"] = again
    return out


# -- visual (offline default) ------------------------------------------------------------------------
def test_visual_ranks_identical_over_edited_over_different_over_empty(shots):
    v = VisualSimilarity()
    for ref, other in (("landing", "blog"), ("blog", "landing")):
        identical = v(shots[ref], shots[ref + "_again"] if ref == "landing" else shots[ref])
        different = v(shots[ref], shots[other])
        empty = v(shots[ref], shots["empty"])
        assert identical == pytest.approx(1.0)
        assert identical > different > empty, (ref, identical, different, empty)
    edited = v(shots["landing"], shots["landing_edit"])
    assert 1.0 > edited > v(shots["landing"], shots["blog"]) + 0.2


def test_visual_terms_are_bounded_symmetric_and_explain_the_empty_page(shots):
    v = VisualSimilarity()
    t = v.terms(shots["landing"], shots["empty"])
    assert set(t) == {"colour_layout", "structure", "content_placement"}
    assert all(0.0 <= x <= 1.0 for x in t.values())
    assert t["content_placement"] == 0.0 and t["structure"] < 0.1
    assert v(shots["landing"], shots["blog"]) == pytest.approx(v(shots["blog"], shots["landing"]))
    assert v(shots["empty"], shots["empty"]) == 1.0
    assert v.batch([(shots["landing"], shots["blog"]), (shots["blog"], shots["blog"])]) == [
        v(shots["landing"], shots["blog"]), 1.0]


def test_visual_handles_different_sizes_and_input_forms(tmp_path, shots):
    v = VisualSimilarity()
    a = shots["landing"]
    assert a.height != shots["empty"].height
    half = a.resize((a.width // 2, a.height // 2))
    assert v(a, half) > 0.8  # the same page at another scale
    path = tmp_path / "a.png"
    a.save(path)
    assert v(path, np.asarray(a)) == pytest.approx(1.0)
    assert v(a.convert("RGBA"), str(path)) == pytest.approx(1.0)
    with pytest.raises(TypeError, match="img_a must be a PIL.Image"):
        v(b"png", a)
    with pytest.raises(ValueError, match=r"img_b: a numpy image must be HxWx3 uint8"):
        v(a, np.zeros((4, 4), dtype=np.uint8))
    with pytest.raises(FileNotFoundError, match="no such image file"):
        v(tmp_path / "missing.png", a)
    with pytest.raises(ValueError, match=r"pairs\[0\] must be a pair"):
        v.batch([a])


def test_visual_config_validation():
    with pytest.raises(ValueError, match="VisualSimilarity.width must be an int >= 16"):
        VisualSimilarity(width=8)
    with pytest.raises(ValueError, match="VisualSimilarity.bins must be <= 32"):
        VisualSimilarity(bins=64)
    with pytest.raises(ValueError, match=r"width \(64\) must be >= 4 \* block \(128\)"):
        VisualSimilarity(width=64, block=32)


def test_similarity_function(shots):
    a, b = shots["landing"], shots["blog"]
    assert similarity(a, b) == VisualSimilarity()(a, b)
    assert similarity(a, b, width=128) == VisualSimilarity(width=128)(a, b)
    with pytest.raises(ValueError, match="unknown similarity metric 'ssim'; expected one of visual, clip"):
        similarity(a, b, metric="ssim")


# -- CLIP (the paper's metric): the code path with a tiny randomly initialised model -----------------
@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory):
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel

    torch.set_num_threads(1)
    torch.manual_seed(0)
    config = CLIPConfig(
        text_config={"vocab_size": 99, "hidden_size": 32, "intermediate_size": 37, "num_hidden_layers": 2,
                     "num_attention_heads": 4, "max_position_embeddings": 16},
        vision_config={"image_size": 32, "patch_size": 8, "hidden_size": 32, "intermediate_size": 37,
                       "num_hidden_layers": 2, "num_attention_heads": 4},
        projection_dim=16)
    model = CLIPModel(config).eval()
    processor = CLIPImageProcessor(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    folder = tmp_path_factory.mktemp("tiny-clip")
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return model, processor, folder


def test_clip_identical_is_one_and_batch_matches_single(tiny_clip, shots):
    # A random CLIP gives no meaningful ranking of different pages; only the code path is tested here.
    model, processor, _ = tiny_clip
    clip = CLIPSimilarity(model=model, processor=processor, batch_size=3)
    a, b, e = shots["landing"], shots["blog"], shots["empty"]
    assert clip(a, shots["landing_again"]) == pytest.approx(1.0, abs=1e-5)
    ab, ae = clip(a, b), clip(a, e)
    assert -1.0 <= ab <= 1.0 and -1.0 <= ae <= 1.0
    assert ab < 0.99999  # different pages do differ
    assert clip.batch([(a, b), (a, e), (b, b)]) == pytest.approx([ab, ae, 1.0], abs=1e-5)
    assert clip.batch([]) == []
    emb = clip.embed([a, b])
    assert tuple(emb.shape) == (2, 16)
    assert np.allclose(emb.norm(dim=-1).numpy(), 1.0, atol=1e-5)


def test_clip_loads_from_a_local_folder(tiny_clip, shots):
    model, processor, folder = tiny_clip
    a, b = shots["landing"], shots["blog"]
    expected = CLIPSimilarity(model=model, processor=processor)(a, b)
    assert CLIPSimilarity(folder, device="cpu")(a, b) == pytest.approx(expected, abs=1e-5)
    assert similarity(a, b, metric="clip", model_name_or_path=folder) == pytest.approx(expected, abs=1e-5)


def test_clip_missing_model_has_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match=r"cannot load the CLIP model/image processor .*metric='visual'"):
        CLIPSimilarity(tmp_path / "no-such-model", local_files_only=True)
    with pytest.raises(ValueError, match="batch_size must be an int >= 1"):
        CLIPSimilarity(model=object(), processor=object(), batch_size=0)
    with pytest.raises(TypeError, match="model must be a CLIP model"):
        CLIPSimilarity(model=object(), processor=object())
