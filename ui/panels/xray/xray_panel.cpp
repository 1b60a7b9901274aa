#include "ui/panels/xray/xray_panel.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/panels/xray/xray_heatmap.h"
#include "ui/panels/xray/xray_histogram.h"
#include "ui/session/run_data.h"
#include "ui/session/shown_study.h"

namespace paritylab::ui {

XrayPanel::XrayPanel(ShownStudy* study, QWidget* parent)
    : QWidget(parent),
      shown_(study),
      statisticBox_(new QComboBox),
      operandBox_(new QComboBox),
      seedBox_(new QComboBox),
      stack_(new QStackedWidget),
      empty_(new QLabel),
      caption_(new QLabel),
      heatmap_(new XrayHeatmap),
      histogram_(new XrayHistogram),
      showInFormats_(new QPushButton(tr("Show in Formats"))),
      reader_([this](const XrayRead* read, const QString&) { showRead(*read); }) {
  for (XrayStatistic s : {XrayStatistic::Underflow, XrayStatistic::Overflow,
                          XrayStatistic::Subnormal, XrayStatistic::SqnrDb, XrayStatistic::Amax})
    statisticBox_->addItem(xrayStatisticName(s), static_cast<int>(s));
  for (const char* operand : {"input", "weight", "grad", "output"})
    operandBox_->addItem(QString::fromLatin1(operand));
  operandBox_->setToolTip(tr("grad: the output gradient dY a backward product is handed"));
  // As wide as the longest operand the database holds ("position loss"), not the first four.
  operandBox_->setSizeAdjustPolicy(QComboBox::AdjustToContents);

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Statistic")));
  controls->addWidget(statisticBox_);
  controls->addWidget(new QLabel(tr("Operand")));
  controls->addWidget(operandBox_);
  controls->addWidget(new QLabel(tr("Seed")));
  controls->addWidget(seedBox_);
  controls->addStretch(1);
  seedBox_->setToolTip(tr("Each block is the run of its backend with this seed"));

  caption_->setWordWrap(true);
  showInFormats_->setEnabled(false);
  showInFormats_->setToolTip(tr("Open the Formats tab with this tensor's amax typed in"));
  auto* below = new QWidget;
  auto* belowLayout = new QVBoxLayout(below);
  belowLayout->setContentsMargins(0, 0, 0, 0);
  belowLayout->addWidget(histogram_, 1);
  auto* buttonRow = new QHBoxLayout;
  buttonRow->addWidget(caption_, 1);
  buttonRow->addWidget(showInFormats_);
  belowLayout->addLayout(buttonRow);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(heatmap_);
  splitter->addWidget(below);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  splitter->setChildrenCollapsible(false);
  splitter->setSizes({300, 220});  // room for the histogram under its wrapped caption

  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignCenter);
  stack_->addWidget(empty_);
  stack_->addWidget(splitter);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(stack_, 1);

  connect(statisticBox_, &QComboBox::currentIndexChanged, this, [this] {
    setStatistic(static_cast<XrayStatistic>(statisticBox_->currentData().toInt()));
  });
  connect(operandBox_, &QComboBox::currentIndexChanged, this, &XrayPanel::rebuild);
  connect(seedBox_, &QComboBox::currentIndexChanged, this, &XrayPanel::rebuild);
  connect(heatmap_, &XrayHeatmap::cellClicked, this, &XrayPanel::selectCell);
  connect(showInFormats_, &QPushButton::clicked, this,
          [this] { emit showInFormatsRequested(selectedAmax_); });
  showRead({});
  readSoon_.setSingleShot(true);
  readSoon_.setInterval(0);
  connect(&readSoon_, &QTimer::timeout, this, [this] { setDatabase(dbPath_); });
  if (study) {
    connect(study, &ShownStudy::databaseChanged, this, &XrayPanel::followStudy);
    // Another spec: what the tab says of an X-ray not read yet follows it (unless another
    // database is being read, which the tab says instead).
    connect(study, &ShownStudy::specChanged, this, [this] {
      if (dbPath_ == shownPath_ && grid_.rows.empty()) rebuild();
    });
    connect(study->runs(), &RunData::reset, this,
            [this, study] { followStudy(study->database()); });
    // One read for runs finishing, a database opened (its runs are announced as finished too).
    connect(study->runs(), &RunData::runFinished, &readSoon_, qOverload<>(&QTimer::start));
  }
}

void XrayPanel::followStudy(const QString& dbPath) {
  dbPath_ = dbPath;
  showReading(dbPath);
  readSoon_.start();
}

void XrayPanel::showReading(const QString& dbPath) {
  if (dbPath.isEmpty() || dbPath == shownPath_) return;  // a reload keeps what is on screen
  grid_ = {};
  runs_.clear();
  heatmap_->setGrid(nullptr, XrayStatistic::Underflow);
  empty_->setText(tr("Reading the X-ray of %1…").arg(QFileInfo(dbPath).fileName()));
  stack_->setCurrentWidget(empty_);
}

void XrayPanel::settle() {
  if (readSoon_.isActive()) {
    readSoon_.stop();
    setDatabase(dbPath_);
  }
  reader_.settle();
}

void XrayPanel::setDatabase(const QString& dbPath) {
  if (dbPath.isEmpty()) {
    dbPath_.clear();
    showRead({});
    return;
  }
  showReading(dbPath);
  reader_.start([dbPath] {
    XrayRead read{dbPath, {}, {}, {}};
    loadXrayRows(dbPath, &read.rows, &read.runs, &read.error);
    return read;
  });
  dbPath_ = dbPath;
}

void XrayPanel::showRead(const XrayRead& read) {
  if (read.path != dbPath_) return;  // read for the database shown before (a newer read follows)
  // Another database, or the first X-ray of this one (a study that just started sampling):
  // start at its worst case. A reload of the same X-ray keeps what the user chose.
  const bool fresh = read.path != shownPath_ || !hasXray();
  shownPath_ = read.path;
  grid_ = {};
  runs_.clear();
  if (!read.error.isEmpty()) {
    empty_->setText(tr("Cannot read the X-ray of %1: %2").arg(read.path, read.error));
    stack_->setCurrentWidget(empty_);
    heatmap_->setGrid(nullptr, XrayStatistic::Underflow);
    return;
  }
  grid_.rows = read.rows;
  runs_ = read.runs;
  fillOperands();
  fillSeeds();
  if (fresh && hasXray())
    showView(worstXrayView(grid_.rows, runs_));
  else
    rebuild();
}

void XrayPanel::fillOperands() {
  const QString current = operandBox_->currentText();
  QStringList operands = {"input", "weight", "left", "right", "grad", "output"};
  QStringList present;
  for (const study::XrayRow& row : grid_.rows) {
    const QString operand = QString::fromStdString(row.operand);
    if (!present.contains(operand)) present << operand;
  }
  for (const QString& operand : present)
    if (!operands.contains(operand)) operands << operand;
  if (!present.isEmpty())
    operands.erase(std::remove_if(operands.begin(), operands.end(),
                                  [&](const QString& o) { return !present.contains(o); }),
                   operands.end());
  const QSignalBlocker block(operandBox_);
  operandBox_->clear();
  operandBox_->addItems(operands);
  const int keep = operandBox_->findText(current);
  operandBox_->setCurrentIndex(keep >= 0 ? keep : 0);
}

void XrayPanel::fillSeeds() {
  const QVariant current = seedBox_->currentData();
  const QSignalBlocker block(seedBox_);
  seedBox_->clear();
  for (std::uint64_t seed : xraySeeds(grid_.rows, runs_))
    seedBox_->addItem(QString::number(seed), QVariant::fromValue<qulonglong>(seed));
  const int keep = seedBox_->findData(current);
  seedBox_->setCurrentIndex(keep >= 0 ? keep : 0);
}

void XrayPanel::setSeed(std::uint64_t seed) {
  const int index = seedBox_->findData(QVariant::fromValue<qulonglong>(seed));
  if (index >= 0) seedBox_->setCurrentIndex(index);
}

void XrayPanel::showView(const XrayView& view) {
  {
    const QSignalBlocker blockStatistic(statisticBox_), blockOperand(operandBox_),
        blockSeed(seedBox_);
    statisticBox_->setCurrentIndex(statisticBox_->findData(static_cast<int>(view.statistic)));
    operandBox_->setCurrentText(view.operand);
    setSeed(view.seed);
  }
  rebuild();
}

XrayView XrayPanel::view() const {
  return {static_cast<XrayStatistic>(statisticBox_->currentData().toInt()),
          operandBox_->currentText(), seedBox_->currentData().value<qulonglong>()};
}

void XrayPanel::setStatistic(XrayStatistic statistic) {
  const int index = statisticBox_->findData(static_cast<int>(statistic));
  if (statisticBox_->currentIndex() != index) {
    statisticBox_->setCurrentIndex(index);  // calls back here
    return;
  }
  heatmap_->setGrid(&grid_, statistic);
}

void XrayPanel::setOperand(const QString& operand) {
  operandBox_->setCurrentText(operand);
}

void XrayPanel::rebuild() {
  const XrayView shown = view();
  grid_.operand = shown.operand;
  grid_.seed = shown.seed;
  grid_.blocks = arrangeXray(grid_.rows, runs_, shown.operand, shown.seed);
  histogram_->clear();
  showInFormats_->setEnabled(false);
  caption_->setText(
      tr("Click a cell. Grey cells were not measured; SQNR of an exact rounding "
         "(+inf dB) takes the top colour. Each block is its backend's run with the chosen "
         "seed."));
  if (grid_.rows.empty() && shown_ && shown_->xrayEverySteps() > 0) {
    // A study that samples its products, none read yet (it reads as runs finish).
    const int every = shown_->xrayEverySteps();
    empty_->setText(tr("This study X-rays its products %1; none is in its results yet (a run's "
                       "X-ray is read when the run finishes).")
                        .arg(every == 1 ? tr("at every step") : tr("every %1 steps").arg(every)));
    stack_->setCurrentWidget(empty_);
  } else if (grid_.rows.empty()) {
    empty_->setText(
        tr("No X-ray in these results: run a study with \"xray\": {} or paritylab-cli run "
           "--xray. (Imported runs from real hardware carry no X-ray.)"));
    stack_->setCurrentWidget(empty_);
  } else {
    stack_->setCurrentIndex(1);
  }
  heatmap_->setGrid(&grid_, shown.statistic);
}

void XrayPanel::selectCell(int block, int site, int step) {
  if (block < 0 || block >= int(grid_.blocks.size())) return;
  const XrayBlock& b = grid_.blocks[std::size_t(block)];
  if (site < 0 || site >= b.sites.size() || step < 0 || step >= int(b.steps.size())) return;
  const int index = b.cell(site, step);
  if (index < 0) {
    histogram_->clear();
    showInFormats_->setEnabled(false);
    caption_->setText(tr("%1 %2 was not measured at step %3")
                          .arg(b.backend, b.sites[site])
                          .arg(b.steps[std::size_t(step)]));
    return;
  }
  const study::XrayRow& row = grid_.rows[std::size_t(index)];
  const QString format = QString::fromStdString(row.format);
  const QString title = tr("%1 (seed %2) %3 %4, step %5 (epoch %6), %7")
                            .arg(b.backend)
                            .arg(b.seed)
                            .arg(b.sites[site], operandBox_->currentText())
                            .arg(row.step)
                            .arg(row.epoch)
                            .arg(format);
  histogram_->setTensor(row.xray, xrayFormat(format), title);
  selectedAmax_ = row.xray.amax;
  showInFormats_->setEnabled(true);
  caption_->setText(tr("%1: amax %2, underflow %3%, overflow %4%, subnormal %5%, SQNR %6 dB")
                        .arg(title)
                        .arg(row.xray.amax, 0, 'g', 6)
                        .arg(100 * row.xray.underflowFraction(), 0, 'g', 4)
                        .arg(100 * row.xray.overflowFraction(), 0, 'g', 4)
                        .arg(100 * row.xray.subnormalFraction(), 0, 'g', 4)
                        .arg(row.xray.sqnrDb(), 0, 'g', 4));
}

std::vector<Exportable> XrayPanel::exportables() const {
  if (!hasXray()) return {};
  return {exportableXray(heatmap_)};
}

std::optional<Exportable> XrayPanel::currentExportable() const {
  const std::vector<Exportable> items = exportables();
  if (items.empty()) return std::nullopt;
  return items.front();
}

}  // namespace paritylab::ui
