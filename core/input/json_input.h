#pragma once
// Parsing JSON that a user wrote (study specs, policies): nothing recurses or allocates beyond
// what the text itself holds, and every message shows a bounded excerpt of the value.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/input/number_input.h"

namespace paritylab::input {

// Parses `text` (a leading UTF-8 byte-order mark is skipped). A streaming pre-scan refuses,
// before any document is built:
//   - nesting deeper than kMaxJsonDepth: "SOURCE: backends[0].policy: JSON nested deeper than 64
//     levels";
//   - a key given twice in one object: "SOURCE: optimizer: duplicate key 'lr'";
//   - syntax errors: "SOURCE:LINE:COLUMN: invalid JSON: syntax error ...".
// Throws InputError. `source` names the document (a file name) in messages.
nlohmann::json parseJsonText(std::string_view text, const std::string& source);

// `value` as compact JSON, cut after `maxChars` characters ("..."): safe on any document (the
// walk stops at kMaxJsonDepth and after the budget, whatever the size).
std::string jsonExcerpt(const nlohmann::json& value, std::size_t maxChars = 60);

// A JSON number as an integer / real within limits (see number_input.h); anything else (a
// string, a fraction, 1e300, a negative seed) is refused naming `field` and the value.
std::int64_t requireJsonInteger(const nlohmann::json& value, const std::string& field,
                                IntegerLimits limits);
double requireJsonReal(const nlohmann::json& value, const std::string& field, RealLimits limits);

// A number as ParityLab writes it in JSON, which has neither NaN nor infinity: NaN (not defined,
// not measured) as null, an infinity as "inf" or "-inf".
nlohmann::json jsonNumber(double v);
// Reads back what jsonNumber writes; anything else throws InputError naming `field`.
double numberFromJson(const nlohmann::json& value, const std::string& field);

// Line and column (1-based) of byte offset `pos` in `text`.
std::pair<int, int> lineColumnOf(std::string_view text, std::size_t pos);

}  // namespace paritylab::input
