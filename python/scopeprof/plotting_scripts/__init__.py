# The charts of scope-profiler's plotting_scripts, drawn with matplotlib's
# Agg canvas into PNG files, and the statistics JSON behind them.
from ..stats_json import collect_region_statistics, write_region_statistics_json
from .durations import plot_durations
from .flame import plot_flame_chart
from .flame_graph import plot_flame_graph
from .gantt import plot_gantt
from .speedup import plot_speedup
from .timeseries import plot_duration_timeseries

__all__ = ["plot_gantt", "plot_durations", "plot_flame_chart", "plot_flame_graph",
           "plot_duration_timeseries", "plot_speedup", "collect_region_statistics",
           "write_region_statistics_json"]
