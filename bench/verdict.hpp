// A ladder's verdict: a state (VerdictKind) and the sentence that says why. Code decides by the
// kind; the text, with the kind's head, is what the tables and JSON print.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "crbench/solvers/outcome.hpp"

namespace crbench {

enum class VerdictKind {
  confirmed,       // the stated prediction holds, to the digits required
  not_confirmed,   // a stated prediction that the data do not support (the why says what would)
  no_rate_stated,  // the theory states no order: the fit is shown, nothing is judged
  no_reference,    // nothing to compare with (the why says why)
  no_prediction,   // the theory does not apply to this model (the why says why)
  nothing_judged,  // no observable that a verdict could rest on
};

template <>
struct EnumText<VerdictKind> {
  static constexpr std::array<std::pair<VerdictKind, std::string_view>, 6> table{{
      {VerdictKind::confirmed, "CONFIRMED"},
      {VerdictKind::not_confirmed, "NOT CONFIRMED"},
      {VerdictKind::no_rate_stated, "NO RATE STATED"},
      {VerdictKind::no_reference, "no reference"},
      {VerdictKind::no_prediction, "no prediction"},
      {VerdictKind::nothing_judged, "no lift-off observable and no deviation with a stated order"},
  }};
};
CRBENCH_JSON_TEXT(VerdictKind)

struct Verdict {
  VerdictKind kind = VerdictKind::nothing_judged;
  std::string why;   // the sentence after the head
  std::string text;  // the head and the why; of joined verdicts, each one's (see joined)

  // "HEAD: why"; "no reference (why)" or "no reference"; the sentence of nothing_judged alone.
  static Verdict of(VerdictKind kind, std::string why = "") {
    Verdict v{kind, std::move(why), std::string(text_of(kind))};
    if (kind == VerdictKind::no_reference) {
      if (!v.why.empty()) v.text += " (" + v.why + ")";
    } else if (kind != VerdictKind::nothing_judged || !v.why.empty()) {
      v.text += ": " + v.why;
    }
    return v;
  }
  bool confirmed() const { return kind == VerdictKind::confirmed; }
  // More of the same sentence (a coefficient fit after an order).
  void append(const std::string& more) {
    why += more;
    text += more;
  }
  // Several verdicts in one, each followed by what it judged: "A (o1); and B (o2)". The caller
  // puts the deciding one first; its kind is the whole's.
  template <class Parts>
  static Verdict joined(const Parts& parts) {
    Verdict v;
    bool first = true;
    for (const auto& [label, part] : parts) {
      if (first) v.kind = part->kind;
      v.text += (first ? "" : "; and ") + part->text + " (" + label + ")";
      first = false;
    }
    v.why = v.text;
    return v;
  }
};

}  // namespace crbench
