"""Fonts and names in the figures: a CJK font when one is installed, English and ``model N`` otherwise.

Chinese text needs a CJK font. One is looked up among the installed fonts (or named by
``$CPSD_PLOT_FONT``; ``none`` forces the fallback); CI installs the Debian package
``fonts-wqy-microhei`` (``apt-get install fonts-wqy-microhei``), found here by family or file name.
Without one, labels fall back to English and a model name with Chinese characters is drawn as
``model N`` (its ASCII part in brackets, if any); the key ``model N`` → full name is logged as a
WARNING and written to ``model_names.csv`` beside the figures, so no name vanishes.
"""

from __future__ import annotations

import logging
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

import matplotlib

matplotlib.use("Agg")  # no display, ever; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import font_manager  # noqa: E402

from cpsd_tasks.report.tables import Row  # noqa: E402

log = logging.getLogger(__name__)

FONT_ENV = "CPSD_PLOT_FONT"
#: CJK font families tried in order.
CJK_FAMILIES: tuple[str, ...] = (
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Source Han Sans CN", "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei", "Microsoft YaHei", "SimHei", "PingFang SC", "Heiti SC", "Hiragino Sans GB",
    "Noto Serif CJK SC", "AR PL UMing CN", "AR PL UKai CN", "Droid Sans Fallback",
)
_CJK_FILE_HINTS = ("wqy", "notosanscjk", "notoserifcjk", "sourcehansans", "simhei", "msyh", "droidsansfallback",
                   "uming", "ukai")
#: English names of the classification labels, for figures without a CJK font.
LABEL_EN: dict[str, str] = {
    "积极": "positive", "消极": "negative", "中性": "neutral", "谣言": "rumor", "非谣言": "non-rumor",
    "诈骗": "fraud", "正常": "normal", "盗窃": "theft", "电信诈骗": "telecom fraud",
    "交通事故": "traffic accident", "故意伤害": "assault",
}
_CJK = re.compile(r"[\u2e80-\u2fff\u3000-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
                  r"\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")


@lru_cache(maxsize=1)
def cjk_font() -> Optional[str]:
    """The CJK font family used for Chinese text, or ``None`` (English fallback).

    ``$CPSD_PLOT_FONT`` names a family (``none`` disables CJK). Otherwise the first installed
    family of :data:`CJK_FAMILIES`; fonts installed after matplotlib built its cache are found by
    file name and registered.
    """
    wanted = os.environ.get(FONT_ENV)
    if wanted and wanted.lower() == "none":
        return None
    names = {f.name for f in font_manager.fontManager.ttflist}
    if wanted:
        if wanted in names:
            return wanted
        log.warning("$%s=%r is not an installed font; looking for another CJK font", FONT_ENV, wanted)
    for family in CJK_FAMILIES:
        if family in names:
            return family
    try:
        for path in font_manager.findSystemFonts():
            flat = re.sub(r"[^a-z]", "", Path(path).name.lower())
            if any(h in flat for h in _CJK_FILE_HINTS):
                font_manager.fontManager.addfont(path)
                return font_manager.FontProperties(fname=path).get_name()
    except Exception as err:  # noqa: BLE001 - a broken font must not stop the figures
        log.warning("CJK font search failed (%s); using English labels", err)
    return None


def use_cjk() -> bool:
    """True when Chinese text can be drawn (a CJK font is set up for matplotlib)."""
    return cjk_font() is not None


def apply_style() -> None:
    font = cjk_font()
    plt.rcParams["font.sans-serif"] = ([font] if font else []) + ["DejaVu Sans"]
    plt.rcParams["font.family"] = "sans-serif"
    plt.rcParams["axes.unicode_minus"] = False
    plt.rcParams["svg.hashsalt"] = "cpsd"
    plt.rcParams["figure.dpi"] = 100


def text(zh: str, en: str) -> str:
    """``zh`` when a CJK font is available, else ``en``."""
    return zh if use_cjk() else en


def label_text(label: str) -> str:
    """A classification label for a figure: as is with a CJK font, else its English name."""
    return label if use_cjk() else LABEL_EN.get(label, safe(label) or "?")


def safe(name: str, fallback: str = "") -> str:
    """``name`` with CJK characters dropped when no CJK font exists (``fallback`` if nothing is left)."""
    if use_cjk():
        return name
    cleaned = re.sub(r"\(\s*\)|\[\s*\]", "", _CJK.sub("", name))
    cleaned = re.sub(r"\s+", " ", cleaned).strip(" -_")
    return cleaned or fallback


def drawn_names(rows: Sequence[Row]) -> list[str]:
    """Names drawn in the figures: the row labels, or without a CJK font ``model N`` (plus the
    label's ASCII part in brackets) for a label with Chinese characters (see :func:`name_key`)."""
    if use_cjk():
        return [r.label for r in rows]
    out = []
    for i, r in enumerate(rows, 1):
        if _CJK.search(r.label):
            rest = safe(r.label)
            out.append(f"model {i}" + (f" ({rest})" if rest else ""))
        else:
            out.append(r.label)
    return out


def name_key(rows: Sequence[Row]) -> list[tuple[str, str]]:
    """``[(name drawn, full model name)]`` for every row whose name the figures could not draw."""
    return [(shown, r.label) for shown, r in zip(drawn_names(rows), rows) if shown != r.label]


def write_name_key(rows: Sequence[Row], out_dir: Path) -> list[Path]:
    """Without a CJK font: log the key of ``model N`` names and write ``model_names.csv``
    (UTF-8 with BOM, so spreadsheet programs show the Chinese names). ``[]`` when not needed."""
    key = name_key(rows)
    if not key:
        return []
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "model_names.csv"
    path.write_text("figure name,model\n" + "".join(f'"{a}","{b.replace(chr(34), chr(34) * 2)}"\n'
                                                     for a, b in key), encoding="utf-8-sig")
    log.warning("no CJK font for the figures (apt-get install fonts-wqy-microhei, or $%s): Chinese "
                "model names are drawn as %s; key in %s", FONT_ENV,
                "; ".join(f"{a} = {b}" for a, b in key), path)
    return [path]


def display_names(rows: Sequence[Row]) -> dict[str, str]:
    """``{row label: name drawn in the figure}`` (see :func:`drawn_names`)."""
    return dict(zip([r.label for r in rows], drawn_names(rows)))


def reset_font_cache() -> None:
    """Forget the CJK font choice (after changing ``$CPSD_PLOT_FONT``; used by tests)."""
    cjk_font.cache_clear()
