"""Backward-compatibility shim: the figures now live in :mod:`cpsd_tasks.report.plots` (fonts and
drawn model names in :mod:`cpsd_tasks.report.fonts`)."""

from cpsd_tasks.report.fonts import (CJK_FAMILIES, FONT_ENV, LABEL_EN, cjk_font, label_text, name_key,  # noqa: F401
                                     reset_font_cache, safe, text, use_cjk, write_name_key)
from cpsd_tasks.report.plots import (CLASS_COLORS, CLF_TASKS, LENGTH_EDGES, bucket_labels,  # noqa: F401
                                     ie_f1_by_length, length_bucket, make_all, plot_error_types,
                                     plot_ie_f1_by_length, plot_label_distribution, plot_radar,
                                     plot_strict_vs_fuzzy, radar_label, save)
