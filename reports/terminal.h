// Terminal presentation: colour and a progress bar. Both are UI only: they
// never change what is written to stdout when it is not a terminal, nor any
// file, and the timing model never sees the wall clock they read.
#ifndef TRNBENCH_REPORTS_TERMINAL_H_
#define TRNBENCH_REPORTS_TERMINAL_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace trn {

// True when `stream` is std::cout, std::cerr or std::clog and the file
// descriptor behind it is a terminal.
bool IsTerminal(const std::ostream& stream);

// --color: auto (the default), always or never.
enum class ColorChoice : uint8_t { kAuto, kAlways, kNever };
// The program's choice, set once by the command line before any output.
void SetColorChoice(ColorChoice choice);

// `always` and `never` decide alone. `auto`: never when NO_COLOR is set to
// a non-empty value (https://no-color.org: an empty one does not count),
// always when FORCE_COLOR is set to a non-empty value other than "0" (CI
// logs that render colour), else only on a terminal that is not TERM=dumb.
bool ShouldUseColor(ColorChoice choice, bool is_terminal,
                    const char* no_color_env, const char* force_color_env,
                    const char* term_env);
bool ShouldUseColor(const std::ostream& stream);

// The width of the terminal behind `stream` (its window size; COLUMNS or
// 80 when the terminal does not say), or 0 when `stream` is not a terminal:
// a pipe or a file keeps whole lines, for grep, diff and CI logs.
size_t TerminalWidth(const std::ostream& stream);

// How text goes to a stream: colour, and the width to fit (0: none).
struct ConsoleStyle {
  bool color = false;
  size_t width = 0;
};
ConsoleStyle ConsoleStyleFor(const std::ostream& stream);

enum class Color : uint8_t { kRed, kGreen, kYellow, kCyan, kBold, kDim };

// `text` wrapped in the ANSI sequence for `color` when `enabled`, unchanged
// otherwise.
std::string Colorize(std::string_view text, Color color, bool enabled);

// A one-line progress bar on stderr. It appears only when the run has
// already taken about a second (short runs stay quiet), redraws at most ten
// times a second, and erases itself when done, so the terminal shows only
// the report. When disabled (stderr is not a terminal) it writes nothing.
class ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;

  ProgressBar(std::ostream& out, bool enabled, int64_t total);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // What is running now, e.g. the workload name.
  void SetLabel(std::string label);
  // The total, when it is known only once work is planned (at least 1).
  void SetTotal(int64_t total);
  void Advance(int64_t units = 1);
  // Erases the bar if it was drawn. Idempotent.
  void Finish();

  // For tests: the line that would be drawn now.
  std::string Line() const;
  std::string LineAt(Clock::time_point now) const;
  // For tests: pretend the run started `ago` earlier.
  void StartedAgo(Clock::duration ago) { start_ -= ago; }
  bool drawn() const { return drawn_; }

 private:
  void MaybeDraw();

  std::ostream& out_;
  bool enabled_;
  int64_t total_;
  int64_t done_ = 0;
  std::string label_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  bool drawn_ = false;
  bool finished_ = false;
};

}  // namespace trn

#endif  // TRNBENCH_REPORTS_TERMINAL_H_
