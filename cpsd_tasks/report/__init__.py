"""Reporting over harness output: one layer, imported in one direction.

Modules, lowest first (each imports only modules above it in this list, never the CLI)::

    jsonio        JSON/JSONL reading (lone surrogates -> U+FFFD), to_number, sample_output
    files         which files belong together: results, sample logs, rescored JSONs
    runs          THE reader: Run / TaskRun from output folders (leaderboard, rescoring, errors, tests)
    tables        table specs (Tables 3-8), radar dimensions, rows per run and data source
    aggregations  the aggregation of a task's metric, by name (the only lookup)
    stats         bootstrap CIs and the paired bootstrap test
    render        Markdown / CSV / LaTeX tables, notes, signatures, the --compare result
    errors        per-sample error taxonomy and the mistakes export
    fonts         CJK font and model names in figures
    plots         the figures
    rescore       re-scoring the generation tasks from sample logs
    html          one self-contained HTML page: tables, figures, paired test, sample browser
    cli           cpsd-leaderboard (and cpsd-leaderboard rescore)

Importing this package imports none of them (matplotlib and the scorers load only when used).
"""
