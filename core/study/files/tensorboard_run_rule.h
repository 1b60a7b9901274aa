#pragma once
// Which backend and seed a TensorBoard run folder holds, from its path: the rule
// `path:PATTERN` (import --backend-from), matched against the run folder's path relative to the
// imported folder, '/'-separated. In PATTERN:
//   {backend}  one or more characters within one folder name (required, once)
//   {seed}     one or more digits (optional, at most once): the run's seed
//   *          any characters within one folder name (none too)
//   **         a whole folder name of its own: any number of folders (none too)
// anything else is literal. Example: path:{backend}/seed{seed} gives "tpu/seed3" backend tpu and
// seed 3. A placeholder takes as few characters as the rest of the pattern allows, so
// path:{backend}{seed} reads "gpu12" as gpu and 12.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace paritylab::study {

struct RunFolderIdentity {
  std::string backend;
  std::optional<std::uint64_t> seed;  // none when the pattern has no {seed}
};

class RunPathRule {
 public:
  // Throws input::InputError naming `option` ("--backend-from") and what is wrong.
  static RunPathRule parse(const std::string& text, const std::string& option = "--backend-from");
  // The backend and seed of a run folder (relative, '/'-separated); none when the path does not
  // match, or its {seed} is beyond the largest seed (2^63 - 1).
  std::optional<RunFolderIdentity> match(const std::string& relativeFolder) const;
  const std::string& text() const { return text_; }
  bool hasSeed() const { return hasSeed_; }

  struct Token {
    enum Kind { Literal, Backend, Seed, Star } kind = Literal;
    std::string text;  // a literal's characters
  };
  using Segment = std::vector<Token>;  // empty: "**"

 private:
  std::string text_;
  std::vector<Segment> segments_;
  std::vector<bool> anyDepth_;  // segment i is "**"
  bool hasSeed_ = false;
};

}  // namespace paritylab::study
