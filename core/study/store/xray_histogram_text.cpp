#include "core/study/store/xray_histogram_text.h"

#include <sstream>
#include <stdexcept>

#include "core/input/number_input.h"

namespace paritylab::study {

using numerics::TensorXray;

std::string exponentHistogramText(const TensorXray& xray) {
  std::string text;
  auto add = [&](const std::string& key, std::int64_t n) {
    if (n == 0) return;
    if (!text.empty()) text += ' ';
    text += key + ':' + std::to_string(n);
  };
  for (int i = 0; i < TensorXray::kExponentBins; ++i)
    add(std::to_string(TensorXray::kMinExponent + i), xray.exponentBins[std::size_t(i)]);
  add("zero", xray.zeros);
  add("nonfinite", xray.nonFinite);
  return text;
}

void parseExponentHistogram(const std::string& text, TensorXray& into) {
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    const auto colon = item.find(':');
    const std::string key = item.substr(0, colon);
    if (colon == std::string::npos)
      throw std::runtime_error("exponent histogram: expected exponent:count, got '" +
                               input::excerpt(item) + "'");
    if (key == "zero" || key == "nonfinite") continue;
    try {
      const int e = std::stoi(key);
      const long long n = std::stoll(item.substr(colon + 1));
      if (e < TensorXray::kMinExponent || e > TensorXray::kMaxExponent || n < 0)
        throw std::out_of_range(item);
      into.exponentBins[std::size_t(e - TensorXray::kMinExponent)] = n;
    } catch (const std::logic_error&) {
      throw std::runtime_error("exponent histogram: bad bin '" + input::excerpt(item) + "'");
    }
  }
}

}  // namespace paritylab::study
