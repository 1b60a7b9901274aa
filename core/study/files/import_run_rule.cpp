#include "core/study/files/import_run_rule.h"

#include "core/input/number_input.h"

namespace paritylab::study {
namespace {

constexpr std::size_t kMaxNameLength = 200;  // as a column's name in a message

bool startsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

RunBackendRule RunBackendRule::parse(const std::string& text, const std::string& option) {
  RunBackendRule rule;
  rule.text_ = text;
  if (startsWith(text, "path:")) {
    rule.path_ = RunPathRule::parse(text, option);
    return rule;
  }
  const bool column = startsWith(text, "column:");
  if (!column && !startsWith(text, "hparam:")) {
    throw input::InputError(option + " '" + input::excerpt(text, 80) +
                            "': a rule is path:PATTERN (e.g. path:{backend}/seed{seed}), "
                            "column:NAME (e.g. column:config.device) or hparam:NAME (e.g. "
                            "hparam:device); docs/import.md");
  }
  rule.kind_ = column ? Kind::Column : Kind::Hparam;
  rule.name_ = text.substr(7);
  if (rule.name_.empty() || rule.name_.size() > kMaxNameLength) {
    throw input::InputError(option + " '" + input::excerpt(text, 80) + "': the " +
                            (column ? "column" : "hyperparameter") + " name after '" +
                            text.substr(0, 7) + "' must have 1 to " +
                            std::to_string(kMaxNameLength) + " characters");
  }
  return rule;
}

}  // namespace paritylab::study
