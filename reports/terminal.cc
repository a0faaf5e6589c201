#include "reports/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <ostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"

namespace trn {

bool IsTerminal(const std::ostream& stream) {
  if (&stream == &std::cout) return isatty(STDOUT_FILENO) == 1;
  if (&stream == &std::cerr || &stream == &std::clog) {
    return isatty(STDERR_FILENO) == 1;
  }
  return false;
}

namespace {
ColorChoice g_color_choice = ColorChoice::kAuto;

bool NonEmpty(const char* v) { return v != nullptr && *v != '\0'; }
}  // namespace

void SetColorChoice(ColorChoice choice) { g_color_choice = choice; }

bool ShouldUseColor(ColorChoice choice, bool is_terminal,
                    const char* no_color_env, const char* force_color_env,
                    const char* term_env) {
  if (choice != ColorChoice::kAuto) return choice == ColorChoice::kAlways;
  if (NonEmpty(no_color_env)) return false;
  if (NonEmpty(force_color_env) && std::strcmp(force_color_env, "0") != 0) {
    return true;
  }
  if (!is_terminal) return false;
  return term_env == nullptr || std::strcmp(term_env, "dumb") != 0;
}

bool ShouldUseColor(const std::ostream& stream) {
  return ShouldUseColor(g_color_choice, IsTerminal(stream),
                        std::getenv("NO_COLOR"), std::getenv("FORCE_COLOR"),
                        std::getenv("TERM"));
}

size_t TerminalWidth(const std::ostream& stream) {
  int fd = -1;
  if (&stream == &std::cout) fd = STDOUT_FILENO;
  if (&stream == &std::cerr || &stream == &std::clog) fd = STDERR_FILENO;
  if (fd < 0 || isatty(fd) != 1) return 0;
  struct winsize ws {};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  // A terminal that does not say its size: COLUMNS, else the classic 80.
  size_t n = 0;
  const char* columns = std::getenv("COLUMNS");
  if (columns != nullptr && absl::SimpleAtoi(columns, &n) && n > 0) return n;
  return 80;
}

ConsoleStyle ConsoleStyleFor(const std::ostream& stream) {
  return {ShouldUseColor(stream), TerminalWidth(stream)};
}

std::string Colorize(std::string_view text, Color color, bool enabled) {
  if (!enabled) return std::string(text);
  const char* code = "";
  switch (color) {
    case Color::kRed:
      code = "\x1b[1;31m";
      break;
    case Color::kGreen:
      code = "\x1b[32m";
      break;
    case Color::kYellow:
      code = "\x1b[33m";
      break;
    case Color::kCyan:
      code = "\x1b[36m";
      break;
    case Color::kBold:
      code = "\x1b[1m";
      break;
    case Color::kDim:
      code = "\x1b[2m";
      break;
  }
  return absl::StrFormat("%s%s\x1b[0m", code, std::string(text));
}

ProgressBar::ProgressBar(std::ostream& out, bool enabled, int64_t total)
    : out_(out),
      enabled_(enabled),
      total_(std::max<int64_t>(total, 1)),
      start_(Clock::now()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() { Finish(); }

void ProgressBar::SetLabel(std::string label) { label_ = std::move(label); }

void ProgressBar::SetTotal(int64_t total) {
  total_ = std::max<int64_t>(total, 1);
  done_ = std::min(done_, total_);
}

void ProgressBar::Advance(int64_t units) {
  done_ = std::min(total_, done_ + units);
  if (enabled_) MaybeDraw();
}

static std::string FormatClock(double seconds) {
  const auto s = static_cast<int64_t>(std::max(0.0, seconds) + 0.5);
  if (s >= 3600) {
    return absl::StrFormat("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  }
  return absl::StrFormat("%d:%02d", s / 60, s % 60);
}

std::string ProgressBar::Line() const { return LineAt(Clock::now()); }

std::string ProgressBar::LineAt(Clock::time_point now) const {
  constexpr int kWidth = 30;
  const double frac = static_cast<double>(done_) / static_cast<double>(total_);
  const int filled = static_cast<int>(frac * kWidth);
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // The rest at the pace so far; none before anything is done.
  const std::string eta =
      done_ > 0 ? FormatClock(elapsed * (1 - frac) / frac) : "-:--";
  return absl::StrFormat(
      "trnbench [%s%s] %3d%% %s elapsed, ETA %s %s", std::string(filled, '#'),
      std::string(kWidth - filled, '.'), static_cast<int>(frac * 100),
      FormatClock(elapsed), eta, label_);
}

void ProgressBar::MaybeDraw() {
  const auto now = Clock::now();
  if (now - start_ < std::chrono::seconds(1)) return;
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  drawn_ = true;
  // \r and "erase to end of line" redraw in place without scrolling.
  out_ << "\r" << Line() << "\x1b[K" << std::flush;
}

void ProgressBar::Finish() {
  if (finished_) return;
  finished_ = true;
  if (drawn_) out_ << "\r\x1b[K" << std::flush;
}

}  // namespace trn
