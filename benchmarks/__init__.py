"""The plugin's benchmark tools, beside ``cpsd_tasks/`` and not installed with it: the loopback
endpoint the bench and the robustness tests use (:mod:`benchmarks.fault_server`) and the absolute
time budgets for adversarial outputs (:mod:`benchmarks.adversarial`). Run from the checkout's root.
"""
