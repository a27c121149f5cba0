#pragma once
// The terminal table's per-strategy lines: a sparkline of admitted traffic per window (one scale
// for every strategy, so the 10x gap shows as a height) and a one-line verdict.
#include <cstddef>
#include <string>
#include <vector>

#include "report/results.h"

namespace rlsim {

// Unicode block characters (U+2581..U+2588), one per cell, `top` mapping to the full block. With
// more values than `width`, each cell shows the mean of a run of consecutive values. "" for none.
std::string sparkline(const std::vector<double>& values, double top, std::size_t width);

// The width of the strategy column of the terminal table and of these lines: 22, or the longest
// label's (in code points, as fmt pads), so that a longer label keeps every column aligned.
std::size_t label_column_width(const RunResult& result);

// One line per strategy: label, sparkline of admitted requests per window of the first limit,
// and the worst limit's verdict ("10.00x the limit (1000 for one user in a 1m window, limit
// 100)"), its figures as the table and report.json have them. Red/green verdicts when `color`.
std::string strategy_lines(const RunResult& result, bool color);

}  // namespace rlsim
