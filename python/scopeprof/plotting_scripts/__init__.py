# The charts of scope-profiler's plotting_scripts, drawn with matplotlib's
# Agg canvas into PNG files.
from .durations import plot_durations
from .flame import plot_flame_chart
from .gantt import plot_gantt
from .speedup import plot_speedup
from .timeseries import plot_duration_timeseries

__all__ = ["plot_gantt", "plot_durations", "plot_flame_chart",
           "plot_duration_timeseries", "plot_speedup"]
