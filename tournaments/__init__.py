"""Round-robin tournaments: schedule, run on an executor, store results, report tables."""
