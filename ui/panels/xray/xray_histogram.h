#pragma once
// One tensor's exponent histogram: a bar per binary exponent floor(log2 |x|) with
// the format's ranges drawn over it in the bit-layout diagram's colours: subnormal range
// (mantissa colour), normal range (exponent colour), max finite (a dark line).

#include <QWidget>
#include <optional>

#include "core/numerics/float_format.h"
#include "core/numerics/tensor_xray.h"

namespace paritylab::ui {

class XrayHistogram : public QWidget {
  Q_OBJECT

 public:
  explicit XrayHistogram(QWidget* parent = nullptr);
  // `format` is what the tensor was rounded to (nullopt: unknown, no ranges drawn).
  void setTensor(const numerics::TensorXray& xray, std::optional<numerics::FloatFormat> format,
                 const QString& title);
  void clear();
  bool hasTensor() const { return shown_; }
  const numerics::TensorXray& tensor() const { return xray_; }
  // The exponent range of the bars (inclusive), valid when hasTensor().
  std::pair<int, int> exponentRange() const { return {first_, last_}; }
  QSize minimumSizeHint() const override { return {260, 100}; }
  // What an empty histogram says, wrapped into emptyHintRect() so that it is whole at any width.
  QString emptyHint() const;
  QRect emptyHintRect() const;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  numerics::TensorXray xray_;
  std::optional<numerics::FloatFormat> format_;
  QString title_;
  bool shown_ = false;
  int first_ = 0, last_ = 0;
};

// The format of a stored X-ray's format name: a preset or eXmY; "bf16x3"/"bf16x6" are measured
// against bf16's range. nullopt for anything else.
std::optional<numerics::FloatFormat> xrayFormat(const QString& name);

}  // namespace paritylab::ui
