# scopeprof: ScopeProf's profiles (.h5 schema 2, .spt traces) in Python,
# with the reading API of scope-profiler plus threads; see docs/python.md.
from .callstack import (CallArrays, NestingError, build_call_arrays,
                        call_stack_children, call_stack_roots, join_teams)
from ._errors import FormatError
from .events import EventTable
from .region import Region, RankRegion, SummaryOnlyError, ThreadRegion
from .manager import ProfileManager
from .results import ProfilingResults, read_h5, read_h5_summary
from .stats_json import collect_region_statistics, write_region_statistics_json

__version__ = "0.1.0"

__all__ = ["read_h5", "read_h5_summary", "ProfilingResults", "Region",
           "RankRegion", "ThreadRegion", "EventTable", "CallArrays",
           "NestingError", "SummaryOnlyError", "build_call_arrays",
           "call_stack_children", "call_stack_roots", "join_teams",
           "plot_gantt", "plot_durations", "plot_flame_chart",
           "plot_duration_timeseries", "plot_speedup", "plot_flame_graph",
           "ProfileManager", "collect_region_statistics",
           "write_region_statistics_json"]
__all__ += ["FormatError"]


def __getattr__(name):
    # matplotlib is imported only when a plot is asked for.
    if name.startswith("plot_"):
        from . import plotting_scripts
        return getattr(plotting_scripts, name)
    raise AttributeError(name)
