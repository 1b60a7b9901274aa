#include "ui/formats_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ui/bit_layout_diagram.h"

namespace paritylab::ui {
namespace {

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
}

// Accepts decimals, "nan", "inf", "-inf" and fp32 bit patterns written as 0x3f800000.
bool parseValue(const QString& text, double* out) {
  const QString t = text.trimmed().toLower();
  if (t.startsWith(QStringLiteral("0x"))) {
    bool ok = false;
    const uint bits = t.mid(2).toUInt(&ok, 16);
    if (!ok) return false;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    *out = f;
    return true;
  }
  if (t == QStringLiteral("nan")) return *out = std::nan(""), true;
  if (t == QStringLiteral("inf") || t == QStringLiteral("+inf")) return *out = INFINITY, true;
  if (t == QStringLiteral("-inf")) return *out = -INFINITY, true;
  bool ok = false;
  *out = t.toDouble(&ok);
  return ok;
}

}  // namespace

FormatsPanel::FormatsPanel(QWidget* parent)
    : QWidget(parent),
      diagram_(new BitLayoutDiagram),
      valueEdit_(new QLineEdit(QStringLiteral("0.1"))),
      modeBox_(new QComboBox),
      overflowBox_(new QComboBox),
      subnormalBox_(new QComboBox),
      customEdit_(new QLineEdit),
      status_(new QLabel) {
  valueEdit_->setToolTip(tr("A decimal (1.5e-3, nan, -inf) or fp32 bits (0x3f800000)"));
  valueEdit_->setMaximumWidth(220);
  for (auto m : {numerics::RoundingMode::NearestEven, numerics::RoundingMode::NearestAway,
                 numerics::RoundingMode::TowardZero, numerics::RoundingMode::Stochastic})
    modeBox_->addItem(qs(numerics::toString(m)), static_cast<int>(m));
  for (auto m : {numerics::OverflowMode::Ieee, numerics::OverflowMode::Saturate})
    overflowBox_->addItem(tr("overflow: %1").arg(qs(numerics::toString(m))), static_cast<int>(m));
  for (auto m : {numerics::SubnormalMode::Keep, numerics::SubnormalMode::Flush})
    subnormalBox_->addItem(tr("subnormals: %1").arg(qs(numerics::toString(m))),
                           static_cast<int>(m));
  customEdit_->setPlaceholderText(tr("custom eXmY, e.g. e5m7"));
  // Wide enough for its placeholder, which says what to type.
  const int customWidth =
      customEdit_->fontMetrics().horizontalAdvance(customEdit_->placeholderText()) + 16;
  customEdit_->setMinimumWidth(customWidth);
  customEdit_->setMaximumWidth(std::max(180, customWidth));
  auto* add = new QPushButton(tr("Add format"));
  auto* resetFormats = new QPushButton(tr("Presets only"));

  // Three short rows, so a 1024-pixel window squeezes none of them: the value and its rounding,
  // overflow and subnormals, then the formats shown.
  auto* valueRow = new QHBoxLayout;
  valueRow->addWidget(new QLabel(tr("Value")));
  valueRow->addWidget(valueEdit_);
  valueRow->addWidget(new QLabel(tr("Rounding")));
  valueRow->addWidget(modeBox_);
  valueRow->addStretch(1);
  auto* modeRow = new QHBoxLayout;
  modeRow->addWidget(overflowBox_);
  modeRow->addWidget(subnormalBox_);
  modeRow->addStretch(1);
  auto* formatRow = new QHBoxLayout;
  formatRow->addWidget(customEdit_);
  formatRow->addWidget(add);
  formatRow->addWidget(resetFormats);
  formatRow->addStretch(1);
  auto* bar = new QVBoxLayout;
  bar->addLayout(valueRow);
  bar->addLayout(modeRow);
  bar->addLayout(formatRow);

  auto* scroll = new QScrollArea;
  scroll->setWidget(diagram_);
  // The diagram takes the room it has (BitLayoutDiagram scales up to fill it, never below its
  // natural size: scroll bars then).
  scroll->setWidgetResizable(true);
  scroll->setBackgroundRole(QPalette::Base);
  scroll->setAlignment(Qt::AlignLeft | Qt::AlignTop);

  auto* hint =
      new QLabel(tr("Click a bit to toggle it — every row then shows the value that "
                    "pattern encodes. Hover a bit for its weight."));
  hint->setStyleSheet(QStringLiteral("color: palette(mid);"));
  hint->setWordWrap(true);
  status_->setWordWrap(true);
  status_->setStyleSheet(QStringLiteral("color: #b00020;"));

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(hint);
  layout->addWidget(status_);
  layout->addWidget(scroll, 1);

  connect(valueEdit_, &QLineEdit::editingFinished, this, &FormatsPanel::applyValueText);
  connect(valueEdit_, &QLineEdit::textEdited, this, [this] {
    double v = 0;
    if (parseValue(valueEdit_->text(), &v)) applyValueText();
  });
  for (QComboBox* box : {modeBox_, overflowBox_, subnormalBox_})
    connect(box, &QComboBox::currentIndexChanged, this, &FormatsPanel::applyRounding);
  const auto addCustom = [this] {
    QString error;
    if (addFormat(customEdit_->text(), &error)) {
      customEdit_->clear();
      status_->clear();
    } else {
      status_->setText(error);
    }
  };
  connect(add, &QPushButton::clicked, this, addCustom);
  connect(customEdit_, &QLineEdit::returnPressed, this, addCustom);
  connect(resetFormats, &QPushButton::clicked, this,
          [this] { diagram_->setFormats(numerics::presetFormats()), diagram_->adjustSize(); });
  connect(diagram_, &BitLayoutDiagram::valueChanged, this, [this](double v) {
    if (!valueEdit_->hasFocus()) valueEdit_->setText(QString::number(v, 'g', 17));
  });
  diagram_->adjustSize();
}

void FormatsPanel::applyValueText() {
  double v = 0;
  if (!parseValue(valueEdit_->text(), &v)) {
    status_->setText(tr("\"%1\" is not a number (write 0.1, 1e-3, nan, -inf or 0x3f800000)")
                         .arg(valueEdit_->text()));
    return;
  }
  status_->clear();
  diagram_->setValue(v);
}

void FormatsPanel::applyRounding() {
  diagram_->setRounding(static_cast<numerics::RoundingMode>(modeBox_->currentData().toInt()),
                        static_cast<numerics::OverflowMode>(overflowBox_->currentData().toInt()),
                        static_cast<numerics::SubnormalMode>(subnormalBox_->currentData().toInt()));
}

bool FormatsPanel::addFormat(const QString& name, QString* error) {
  const std::string n = name.trimmed().toStdString();
  const auto format = numerics::parseFormat(n);
  if (!format) {
    if (error) *error = QString::fromStdString(numerics::formatNameError(n));
    return false;
  }
  auto formats = diagram_->formats();
  for (const auto& f : formats)
    if (f.name == format->name) {
      if (error) *error = tr("%1 is already shown").arg(name);
      return false;
    }
  formats.push_back(*format);
  diagram_->setFormats(std::move(formats));
  diagram_->adjustSize();
  return true;
}

}  // namespace paritylab::ui
