#include "ui/panels/formats/formats_panel.h"

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
#include <optional>

#include "core/numerics/exact_decimal.h"
#include "core/numerics/fp32_input.h"
#include "ui/charts/bit_layout_diagram.h"

namespace paritylab::ui {
namespace {

QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
}

// The path of `paritylab-cli bits` and `round`: the text parsed straight to fp32 (decimals, nan,
// inf, fp32 bits 0x3f800000), which every row then rounds with the same Rounder.
std::optional<numerics::Fp32Input> parseValue(const QString& text) {
  return numerics::parseFp32Input(text.toStdString());
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
      status_(new QLabel),
      note_(new QLabel) {
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
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  note_->setWordWrap(true);  // a long note must not widen the window

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(hint);
  layout->addWidget(status_);
  layout->addWidget(note_);
  layout->addWidget(scroll, 1);

  connect(valueEdit_, &QLineEdit::editingFinished, this, &FormatsPanel::applyValueText);
  connect(valueEdit_, &QLineEdit::textEdited, this, [this] {
    if (parseValue(valueEdit_->text())) applyValueText();
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
    if (applyingText_ || valueEdit_->hasFocus()) return;
    valueEdit_->setText(QString::number(v, 'g', 9));  // 9 digits name an fp32 exactly
    note_->clear();                                   // a value from clicked bits is an fp32
  });
  applyValueText();  // the initial 0.1: the rows and the note say which fp32 they round
  diagram_->adjustSize();
}

void FormatsPanel::setValue(double value) {
  valueEdit_->setText(QString::number(value, 'g', 9));
  applyValueText();
}

QString FormatsPanel::valueText() const {
  return valueEdit_->text();
}

void FormatsPanel::applyValueText() {
  const auto input = parseValue(valueEdit_->text());
  if (!input) {
    status_->setText(tr("\"%1\" is not a number (write 0.1, 1e-3, nan, -inf or 0x3f800000)")
                         .arg(valueEdit_->text()));
    return;
  }
  status_->clear();
  if (input->exact)
    note_->clear();
  else
    note_->setText(tr("%1 is not exactly an fp32: every row rounds the nearest fp32, %2, as a "
                      "device would see it.")
                       .arg(valueEdit_->text().trimmed(),
                            QString::fromStdString(numerics::exactDecimal(input->value))));
  applyingText_ = true;
  diagram_->setValue(input->value);
  applyingText_ = false;
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

std::vector<Exportable> FormatsPanel::exportables() const {
  return {exportableDiagram(diagram_, QStringLiteral("bit-layout"))};
}

std::optional<Exportable> FormatsPanel::currentExportable() const {
  return exportables().front();
}

}  // namespace paritylab::ui
