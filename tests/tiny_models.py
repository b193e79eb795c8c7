"""Tiny randomly initialised causal LMs for offline tests of lm-eval's ``hf`` backend.

Nothing here downloads anything: the tokenizer is trained at call time on the project's own text
(the embedded demo data, the task YAMLs and the label words of :mod:`cpsd_tasks.tasks`), and the
model is a 2-layer ``LlamaForCausalLM`` with random weights, saved to a folder that
``--model hf --model_args pretrained=<folder>`` loads. No pytest dependency: import it from a
test, a notebook or a script::

    from tiny_models import build_tiny_lm
    path = build_tiny_lm("/tmp/tiny-chat", chat_template=True)
    # lm_eval --model hf --model_args pretrained=/tmp/tiny-chat,dtype=float32 --device cpu ...

The tokenizer is byte-level BPE (so *any* text encodes, nothing maps to an unknown token), with a
pre-tokenizer that isolates every CJK character, so training on the corpus turns every Chinese
character seen there into exactly one token (a base vocabulary of 256 bytes plus one or two merges
per character). Special tokens: ``<|endoftext|>`` (BOS/EOS), ``<pad>``, ``<|im_start|>``,
``<|im_end|>``; the chat template is ChatML, as in Qwen chat models.

:func:`build_tiny_lm` with ``script="…"`` builds a *scripted* model instead of a random one: its
greedy output is that string followed by EOS whatever the prompt, and its log-likelihoods favour
the script's first token after any other token. Tests use it to assert hand-computed scores.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator, Optional, Sequence, Union

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = ROOT / "cpsd_tasks"

BOS_EOS = "<|endoftext|>"
PAD = "<pad>"
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
SPECIAL_TOKENS = (BOS_EOS, PAD, IM_START, IM_END)

#: ChatML, the template of Qwen chat models; ``add_generation_prompt`` opens the assistant turn.
CHAT_TEMPLATE = (
    "{% for m in messages %}" + IM_START + "{{ m['role'] }}\n{{ m['content'] }}" + IM_END + "\n{% endfor %}"
    "{% if add_generation_prompt %}" + IM_START + "assistant\n{% endif %}"
)

#: One CJK character (ideographs, CJK punctuation, full-width forms) is one pre-token.
_CJK = r"[\u2e80-\u2fff\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"
CJK_RE = re.compile(_CJK)


def _strings(value) -> Iterator[str]:
    """Every string inside a JSON value (dict keys included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def project_corpus() -> list[str]:
    """The text the tokenizer is trained on: everything a cpsd prompt is made of.

    Returns:
        A list of strings: every string field of every line of ``cpsd_tasks/demo/*/*.jsonl`` (all
        tasks present at call time), the full text of every file in ``cpsd_tasks/yaml`` (prompt
        wording), every label, alias and answer word of :mod:`cpsd_tasks.tasks`, option letters
        and ASCII digits. Order is deterministic (sorted paths).
    """
    from cpsd_tasks.tasks import EXAM_TF_LABELS, READING_JUDGE_LABELS, TASKS

    texts: list[str] = []
    for path in sorted((PACKAGE_DIR / "demo").glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8-sig").splitlines():
            if line.strip():
                texts.extend(_strings(json.loads(line)))
    for path in sorted((PACKAGE_DIR / "yaml").iterdir()):
        if path.is_file():
            texts.append(path.read_text(encoding="utf-8"))
    for spec in TASKS.values():
        texts.extend(spec.labels)
        texts.extend(spec.aliases)
    texts.extend(READING_JUDGE_LABELS + EXAM_TF_LABELS)
    texts.append("ABCDEFGHIJ abcdefghij 0123456789 答案：")
    return texts


def train_tokenizer(corpus: Sequence[str], chat_template: bool = True, model_max_length: int = 1024):
    """Train the byte-level BPE tokenizer on ``corpus``.

    Args:
        corpus: training texts; every CJK character in them becomes a single token.
        chat_template: set the ChatML :data:`CHAT_TEMPLATE` (else the tokenizer has none, like a
            base model, and ``--apply_chat_template`` fails on it).
        model_max_length: the tokenizer's ``model_max_length``.

    Returns:
        A ``transformers.PreTrainedTokenizerFast``.
    """
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(_CJK), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=60000, min_frequency=1, special_tokens=list(SPECIAL_TOKENS),
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(list(corpus), trainer)
    return _hf_tokenizer(tok, chat_template, model_max_length)


def _hf_tokenizer(backend, chat_template: bool, model_max_length: int):
    """Wrap a ``tokenizers.Tokenizer`` as the transformers tokenizer the tiny models use."""
    from transformers import PreTrainedTokenizerFast

    hf_tok = PreTrainedTokenizerFast(tokenizer_object=backend, bos_token=BOS_EOS, eos_token=BOS_EOS,
                                     pad_token=PAD, additional_special_tokens=[IM_START, IM_END],
                                     model_max_length=model_max_length)
    if chat_template:
        hf_tok.chat_template = CHAT_TEMPLATE
    return hf_tok


@lru_cache(maxsize=4)
def _cached_tokenizer_json(corpus: tuple[str, ...]) -> str:
    return train_tokenizer(corpus, chat_template=False).backend_tokenizer.to_str()


def project_tokenizer(chat_template: bool = True, model_max_length: int = 1024,
                      extra_texts: Iterable[str] = ()):
    """The tokenizer trained on :func:`project_corpus` (+ ``extra_texts``); training is cached.

    Returns:
        A fresh ``PreTrainedTokenizerFast`` (see :func:`train_tokenizer` for the arguments).
    """
    from tokenizers import Tokenizer

    corpus = tuple(project_corpus()) + tuple(extra_texts)
    return _hf_tokenizer(Tokenizer.from_str(_cached_tokenizer_json(corpus)), chat_template, model_max_length)


def _script_model(model, tokenizer, script: str, strength: float = 20.0) -> list[int]:
    """Turn ``model`` into a deterministic bigram machine that emits ``script`` then EOS.

    Every layer's output projections are zeroed, so the last hidden state is the (normalised)
    embedding of the current token alone. Token ``k`` of the script gets its own embedding axis
    ``k + 1``; every other token shares axis 0. The untied LM head maps axis 0 to the script's
    first token, axis ``k`` to token ``k`` (0-based), and the last axis to EOS, each with logit
    ``strength * sqrt(hidden_size)``; every other logit is 0.

    Returns:
        The script's token ids.

    Raises:
        ValueError: the script has repeated tokens (a bigram machine cannot emit them) or more
            tokens than ``hidden_size - 1``.
    """
    import torch

    ids = tokenizer.encode(script, add_special_tokens=False)
    hidden = model.config.hidden_size
    if len(set(ids)) != len(ids):
        raise ValueError(f"script {script!r} repeats a token: {ids}")
    if len(ids) >= hidden:
        raise ValueError(f"script {script!r} has {len(ids)} tokens; at most {hidden - 1} fit")
    with torch.no_grad():
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        emb = model.model.embed_tokens.weight
        emb.zero_()
        emb[:, 0] = 1.0
        for k, tid in enumerate(ids):
            emb[tid].zero_()
            emb[tid, k + 1] = 1.0
        head = model.lm_head.weight
        head.zero_()
        successors = [*ids, tokenizer.eos_token_id]
        for axis, nxt in enumerate(successors):
            head[nxt, axis] = strength
    return ids


def build_tiny_lm(out_dir: Union[str, Path], chat_template: bool = True, max_position_embeddings: int = 1024,
                  script: Optional[str] = None, seed: int = 0, extra_texts: Iterable[str] = ()) -> Path:
    """Save a tiny causal LM + tokenizer that ``--model hf`` loads from ``out_dir``.

    Args:
        out_dir: folder to write (created; existing files are overwritten).
        chat_template: give the tokenizer the ChatML template (a "chat model") or none (a "base
            model").
        max_position_embeddings: the model's context length; lm-eval reads its ``max_length``
            from this, so a small value exercises truncation of long inputs.
        script: ``None`` for random weights (seeded), or a string the model must emit greedily
            (see :func:`_script_model`); must not repeat a token.
        seed: torch seed of the random weights.
        extra_texts: more tokenizer training text (e.g. a real data set's documents).

    Returns:
        ``out_dir`` as an absolute ``Path``. Size on disk is about 1–2 MB; build time < 2 s.
    """
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    tok = project_tokenizer(chat_template=chat_template, model_max_length=max_position_embeddings,
                            extra_texts=extra_texts)
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=max_position_embeddings,
        bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
        tie_word_embeddings=False,
    )
    model = LlamaForCausalLM(config)
    if script is not None:
        _script_model(model, tok, script)
    model.eval()
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def build_tiny_bert(out_dir: Union[str, Path], seed: int = 0, extra_texts: Iterable[str] = ()) -> Path:
    """Save a tiny random BERT (2 layers) + character ``BertTokenizer`` for offline BERTScore.

    Use it as ``--metadata '{"bertscore_model": "<out_dir>", "bertscore_num_layers": 2}'`` (a
    local directory needs an explicit layer count). The vocabulary is ``[PAD] [UNK] [CLS] [SEP]
    [MASK]`` plus every character of :func:`project_corpus` (+ ``extra_texts``); the tokenizer's
    ``model_max_length`` is 512, as bert-score requires. Values are meaningless but deterministic.

    Returns:
        ``out_dir`` as an absolute ``Path`` (about 1 MB).
    """
    import torch
    from transformers import BertConfig, BertModel, BertTokenizer

    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    chars = sorted({ch for text in (*project_corpus(), *extra_texts) for ch in text if not ch.isspace()})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *chars]
    (out / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    tok = BertTokenizer(str(out / "vocab.txt"), do_lower_case=False, model_max_length=512)
    torch.manual_seed(seed)
    model = BertModel(BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2,
                                 num_attention_heads=2, intermediate_size=64, max_position_embeddings=512))
    model.eval()
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out


if __name__ == "__main__":  # pragma: no cover - convenience for humans
    import argparse

    parser = argparse.ArgumentParser(description="Write a tiny random causal LM for `lm_eval --model hf`.")
    parser.add_argument("out_dir")
    parser.add_argument("--no-chat-template", action="store_true")
    parser.add_argument("--max-position-embeddings", type=int, default=1024)
    parser.add_argument("--script", default=None)
    ns = parser.parse_args()
    print(build_tiny_lm(ns.out_dir, chat_template=not ns.no_chat_template,
                        max_position_embeddings=ns.max_position_embeddings, script=ns.script))
