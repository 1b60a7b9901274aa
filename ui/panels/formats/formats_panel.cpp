#include "ui/panels/formats/formats_panel.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "core/input/number_input.h"
#include "core/numerics/block_anatomy.h"
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
      note_(new QLabel),
      blockFormatBox_(new QComboBox),
      blockValuesEdit_(new QLineEdit(QStringLiteral("1.5, 0.1, -3, 6, 0.02"))),
      blockScale_(new QLabel),
      blockTable_(new QTableWidget(0, 5)) {
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

  // One block of a block-scaled format: the values share one scale, each keeps a narrow element.
  for (const std::string& name : numerics::blockFormatNames())
    blockFormatBox_->addItem(QString::fromStdString(name));
  blockFormatBox_->setCurrentText(QStringLiteral("mxfp4"));
  blockValuesEdit_->setToolTip(tr("Comma-separated values: one block (32 for MX, 16 for NVFP4)"));
  blockScale_->setWordWrap(true);
  blockScale_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  blockTable_->setHorizontalHeaderLabels(
      {tr("value"), tr("element bits"), tr("element"), tr("decoded"), tr("error")});
  blockTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  blockTable_->verticalHeader()->setDefaultSectionSize(20);
  blockTable_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  blockTable_->horizontalHeader()->setStretchLastSection(true);
  auto* blockRow = new QHBoxLayout;
  blockRow->addWidget(new QLabel(tr("Block")));
  blockRow->addWidget(blockFormatBox_);
  blockRow->addWidget(blockValuesEdit_, 1);
  auto* block = new QGroupBox(tr("One block of a block-scaled format (emulated)"));
  auto* blockLayout = new QVBoxLayout(block);
  blockLayout->addLayout(blockRow);
  blockLayout->addWidget(blockScale_);
  blockLayout->addWidget(blockTable_, 1);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(scroll);
  split->addWidget(block);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(hint);
  layout->addWidget(status_);
  layout->addWidget(note_);
  layout->addWidget(split, 1);
  connect(blockFormatBox_, &QComboBox::currentIndexChanged, this, &FormatsPanel::applyBlock);
  connect(blockValuesEdit_, &QLineEdit::textChanged, this, &FormatsPanel::applyBlock);
  applyBlock();

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

bool FormatsPanel::setBlock(const QString& format, const QString& values) {
  blockFormatBox_->setCurrentText(format);
  blockValuesEdit_->setText(values);
  applyBlock();
  return blockTable_->rowCount() > 0;
}

QString FormatsPanel::blockScaleText() const {
  return blockScale_->text();
}

// The block's values are parsed as the Value field's are (parseFp32Input); the block itself is
// core's (numerics::dissectBlock), so what is shown is what a block-scaled product computes.
void FormatsPanel::applyBlock() {
  blockTable_->setRowCount(0);
  const auto format = numerics::namedBlockFormat(blockFormatBox_->currentText().toStdString());
  if (!format) return;
  std::vector<float> values;
  const QStringList parts = blockValuesEdit_->text().split(QLatin1Char(','));
  for (int i = 0; i < parts.size(); ++i) {
    const auto v = parseValue(parts[i].trimmed());
    if (!v) {
      blockScale_->setText(tr("Value %1, \"%2\", is not a number: write comma-separated values "
                              "such as 1.5, 0.1, -3")
                               .arg(i + 1)
                               .arg(parts[i].trimmed()));
      return;
    }
    values.push_back(v->value);
  }
  numerics::BlockAnatomy a;
  try {
    a = numerics::dissectBlock(values, *format);
  } catch (const input::InputError& e) {
    blockScale_->setText(QString::fromUtf8(e.what()));
    return;
  }
  const bool nvfp4 = format->kind == numerics::BlockScalingKind::NVFP4;
  if (a.nanBlock)
    blockScale_->setText(
        tr("Scale: NaN. A NaN or an infinity in the block makes every element "
           "NaN."));
  else if (a.scale == 0.0)
    blockScale_->setText(tr("Scale: none, every value is zero."));
  else if (nvfp4)
    blockScale_->setText(tr("Scale %1 = block scale %2 (E4M3 %3) × tensor scale %4 (fp32). "
                            "Each value decodes as element × scale.")
                             .arg(a.scale, 0, 'g', 9)
                             .arg(a.blockScale, 0, 'g', 9)
                             .arg(QString::fromStdString(a.blockScaleBits))
                             .arg(a.tensorScale, 0, 'g', 9));
  else if (std::all_of(values.begin(), values.end(), [](float v) { return v == 0.0f; }))
    blockScale_->setText(tr("Scale 2^%1 (E8M0 code 0): every value is zero, so the block keeps "
                            "the smallest scale E8M0 holds.")
                             .arg(a.scaleExponent));
  else
    blockScale_->setText(tr("Scale 2^%1 = %2 (E8M0 code %3), shared by %4 %5 elements: "
                            "floor(log2 amax) − %6. SQNR %7 dB.")
                             .arg(a.scaleExponent)
                             .arg(a.scale, 0, 'g', 9)
                             .arg(a.scaleExponent + 127)
                             .arg(values.size())
                             .arg(QString::fromStdString(format->element.name))
                             .arg(format->element.maxExponent())
                             .arg(a.sqnrDb, 0, 'f', 1));
  blockTable_->setRowCount(int(a.elements.size()));
  for (int r = 0; r < int(a.elements.size()); ++r) {
    const numerics::BlockElementAnatomy& e = a.elements[std::size_t(r)];
    const double error = std::abs(e.decoded - e.value);
    const QString cells[] = {QString::number(e.value, 'g', 9), QString::fromStdString(e.bits),
                             QString::number(e.element, 'g', 9), QString::number(e.decoded, 'g', 9),
                             std::isfinite(error) ? QString::number(error, 'g', 3) : tr("NaN")};
    for (int c = 0; c < 5; ++c) blockTable_->setItem(r, c, new QTableWidgetItem(cells[c]));
  }
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
