"""A bot as a process: its sandbox (bubblewrap), its cgroup, its limits, and its kill.

Nothing of a bot outlives its game: the sandbox's PID namespace dies with its first
process, and the cgroup (where the machine allows one) is killed whole.
"""
