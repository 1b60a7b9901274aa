#include "ui/panels/playground/playground_regression_view.h"

#include <QChart>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>
#include <stdexcept>

#include "core/playground/matrix_text.h"
#include "core/playground/playground_export.h"
#include "ui/charts/backend_colours.h"
#include "ui/charts/chart_view.h"
#include "ui/session/core_errors.h"

namespace paritylab::ui {
namespace {

std::vector<double> parseVector(const QString& text, const std::string& field) {
  const playground::Matrix m = playground::parseMatrix(text.toStdString(), field);
  if (m.rows != 1 && m.cols != 1)
    throw std::invalid_argument(field + ": expected one row or one column of numbers");
  return m.decimals;
}

double parseNumber(const QString& text, const std::string& field) {
  const std::vector<double> v = parseVector(text, field);
  if (v.size() != 1) throw std::invalid_argument(field + ": expected one number");
  return v[0];
}

constexpr int kChartWidth = 420;   // the narrowest a chart gets beside the other
constexpr int kChartHeight = 220;  // the lowest a chart gets
constexpr int kPageHeight = 660;   // the page's height with the charts side by side

QString coefficientName(int j, int features) {
  return j == features ? QStringLiteral("b") : QStringLiteral("w%1").arg(j + 1);
}

QTableWidgetItem* cell(const QString& text, bool number = true) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

QString num(double v, char format = 'f', int precision = 7) {
  return std::isfinite(v) ? QString::number(v, format, precision) : QStringLiteral("—");
}

}  // namespace

PlaygroundRegressionView::PlaygroundRegressionView(QWidget* parent)
    : QWidget(parent),
      xEdit_(new QPlainTextEdit),
      yEdit_(new QLineEdit),
      lrEdit_(new QLineEdit),
      epochsBox_(new QSpinBox),
      weightsEdit_(new QLineEdit),
      biasEdit_(new QLineEdit),
      error_(new QLabel),
      note_(new QLabel),
      table_(new QTableWidget),
      coefficientBox_(new QComboBox) {
  xEdit_->setToolTip(tr("One row per line (or rows separated by ';'), values by commas or spaces"));
  xEdit_->setFixedHeight(64);
  xEdit_->setTabChangesFocus(true);
  epochsBox_->setRange(0, 100000);
  auto* runButton = new QPushButton(tr("Run every backend"));
  auto* resetButton = new QPushButton(tr("Example"));
  resetButton->setToolTip(tr("X = [[1,2],[3,4],[5,6]], y = [7,9,11], lr 0.01, 100 epochs, zeros"));
  connect(runButton, &QPushButton::clicked, this, [this] { run(); });
  connect(resetButton, &QPushButton::clicked, this, [this] {
    resetToExample();
    run();
  });

  auto* left = new QFormLayout;
  left->addRow(tr("X"), xEdit_);
  auto* right = new QFormLayout;
  right->addRow(tr("y"), yEdit_);
  right->addRow(tr("initial w"), weightsEdit_);
  right->addRow(tr("initial b"), biasEdit_);
  auto* third = new QFormLayout;
  third->addRow(tr("lr"), lrEdit_);
  third->addRow(tr("epochs"), epochsBox_);
  auto* buttons = new QVBoxLayout;
  buttons->addWidget(runButton);
  buttons->addWidget(resetButton);
  buttons->addStretch();
  auto* inputs = new QHBoxLayout;
  inputs->addLayout(left, 2);
  inputs->addLayout(right, 2);
  inputs->addLayout(third, 1);
  inputs->addLayout(buttons);

  error_->setStyleSheet(QStringLiteral("color: #cf222e"));
  error_->setWordWrap(true);
  error_->hide();
  note_->setWordWrap(true);
  note_->setTextFormat(Qt::RichText);

  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  table_->setAlternatingRowColors(true);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setSelectionMode(QAbstractItemView::ContiguousSelection);

  loss_ =
      makePlaygroundChart(tr("Training loss (MSE)"), tr("epoch"), false, tr("loss"), true, false);
  coefficients_ =
      makePlaygroundChart(tr("Coefficient"), tr("epoch"), false, QString(), false, false);
  lossView_ = new ChartView(loss_.chart);
  coefficientView_ = new ChartView(coefficients_.chart);
  for (ChartView* v : {lossView_, coefficientView_}) v->setMinimumHeight(kChartHeight);
  connect(coefficientBox_, &QComboBox::currentIndexChanged, this, [this] { drawCharts(); });
  charts_ = new QSplitter(Qt::Horizontal);
  charts_->addWidget(lossView_);
  charts_->addWidget(coefficientView_);
  charts_->setStretchFactor(0, 1);
  charts_->setStretchFactor(1, 1);
  charts_->setChildrenCollapsible(false);
  charts_->setSizes({500, 500});
  auto* caption =
      new QLabel(tr("Colours: the backend names in the table · dashed black: fp64 GD "
                    "· dotted black: fp64 lstsq"));
  caption->setWordWrap(true);
  caption->setStyleSheet(QStringLiteral("color: #57606a"));
  auto* chartColumn = new QWidget;
  auto* chartLayout = new QVBoxLayout(chartColumn);
  chartLayout->setContentsMargins(0, 0, 0, 0);
  chartLayout->addWidget(charts_, 1);
  auto* captionRow = new QHBoxLayout;
  captionRow->addWidget(caption, 1);
  captionRow->addWidget(new QLabel(tr("Right chart:")));
  captionRow->addWidget(coefficientBox_);
  chartLayout->addLayout(captionRow);

  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(table_);
  split->addWidget(chartColumn);
  split->setStretchFactor(0, 0);  // the table keeps its rows' height, the charts take the rest
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(inputs);
  layout->addWidget(error_);
  layout->addWidget(note_);
  layout->addWidget(split, 1);
  resetToExample();
  run();
  arrangeCharts();
}

void PlaygroundRegressionView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  arrangeCharts();
}

void PlaygroundRegressionView::arrangeCharts() {
  const bool sideBySide = width() >= 2 * kChartWidth + 20;
  const Qt::Orientation wanted = sideBySide ? Qt::Horizontal : Qt::Vertical;
  // The page scrolls: room for the inputs and the table above the charts.
  setMinimumHeight(std::max(kPageHeight + (sideBySide ? 0 : kChartHeight + 20),
                            layout()->minimumSize().height()));
  if (charts_->orientation() == wanted) return;
  charts_->setOrientation(wanted);
  charts_->setSizes({500, 500});
}

void PlaygroundRegressionView::resetToExample() {
  const playground::RegressionProblem p;
  xEdit_->setPlainText(QStringLiteral("1, 2\n3, 4\n5, 6"));
  yEdit_->setText(QStringLiteral("7, 9, 11"));
  lrEdit_->setText(QString::number(p.lr));
  epochsBox_->setValue(p.epochs);
  weightsEdit_->setText(QStringLiteral("0, 0"));
  biasEdit_->setText(QStringLiteral("0"));
}

bool PlaygroundRegressionView::run() {
  try {
    playground::RegressionProblem p;
    const playground::Matrix x = playground::parseMatrix(xEdit_->toPlainText().toStdString(), "X");
    p.rows = x.rows;
    p.features = x.cols;
    p.x = x.decimals;
    p.y = parseVector(yEdit_->text(), "y");
    p.lr = parseNumber(lrEdit_->text(), "lr");
    p.epochs = epochsBox_->value();
    p.initialWeights = parseVector(weightsEdit_->text(), "initial w");
    p.initialBias = parseNumber(biasEdit_->text(), "initial b");
    experiment_ = playground::runRegressionExperiment(p, backends::presetPolicies());
  } catch (const std::invalid_argument& e) {
    error_->setText(tr("Not run: %1").arg(ui::errorText(e)));
    error_->show();
    return false;
  }
  error_->hide();
  const auto& ls = experiment_.leastSquares;
  note_->setText(
      tr("<b>Emulated</b> backends, same initial weights; distances over (w, b). ") +
      (ls.rankDeficient()
           ? tr("<b>[X 1] is rank-deficient</b> (rank %1 of %2): lstsq gives the "
                "<i>minimum-norm</i> solution, which gradient descent need not reach; "
                "<b>fp64 GD</b> (same descent, no rounding) shows what precision changed.")
                 .arg(ls.rank)
                 .arg(ls.columns)
           : tr("[X 1] has full column rank: the least-squares solution is unique.")));
  const int features = experiment_.problem.features;
  const int keep = coefficientBox_->currentIndex();
  coefficientBox_->blockSignals(true);
  coefficientBox_->clear();
  for (int j = 0; j <= features; ++j) coefficientBox_->addItem(coefficientName(j, features));
  coefficientBox_->addItem(tr("distance to fp64 GD"));
  coefficientBox_->setCurrentIndex(keep >= 0 && keep <= features + 1 ? keep : 0);
  coefficientBox_->blockSignals(false);
  fillTable();
  drawCharts();
  return true;
}

void PlaygroundRegressionView::fillTable() {
  const auto& e = experiment_;
  const int features = e.problem.features;
  QStringList headers{tr("source")};
  for (int j = 0; j <= features; ++j) headers << coefficientName(j, features);
  headers << tr("final loss") << tr("|c − fp64 GD|") << tr("|c − lstsq|") << tr("notes");
  table_->clear();
  table_->setColumnCount(int(headers.size()));
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(int(e.runs.size()) + 2);
  auto fillRow = [&](int row, const QString& name, const std::vector<double>& c, double loss,
                     double dGd, double dLs, const QString& notes) {
    table_->setItem(row, 0, cell(name, false));
    for (int j = 0; j <= features; ++j) table_->setItem(row, 1 + j, cell(num(c[std::size_t(j)])));
    table_->setItem(row, features + 2, cell(num(loss, 'g', 6)));
    table_->setItem(row, features + 3, cell(num(dGd, 'e', 2)));
    table_->setItem(row, features + 4, cell(num(dLs, 'e', 2)));
    table_->setItem(row, features + 5, cell(notes, false));
  };
  fillRow(0, tr("fp64 GD (reference a)"), e.gradientDescent.final(), e.gradientDescent.loss.back(),
          0.0,
          playground::euclideanDistance(e.gradientDescent.final(), e.leastSquares.coefficients),
          tr("same descent, no rounding"));
  fillRow(1, tr("fp64 lstsq (reference b)"), e.leastSquares.coefficients, NAN, NAN, 0.0,
          e.leastSquares.rankDeficient() ? tr("minimum-norm solution") : QString());
  for (std::size_t i = 0; i < e.runs.size(); ++i) {
    const auto& r = e.runs[i];
    QStringList notes;
    if (r.replicas > 1) notes << tr("%1 replicas (one shard each)").arg(r.replicas);
    if (r.skippedSteps > 0)
      notes << tr("%1 steps skipped (loss-scale overflow)").arg(r.skippedSteps);
    if (!r.finite) notes << tr("diverged (NaN/inf loss)");
    fillRow(int(i) + 2, QString::fromStdString(r.backend), r.trajectory.final(),
            r.trajectory.loss.back(), r.distanceToGradientDescent, r.distanceToLeastSquares,
            notes.join(QStringLiteral("; ")));
    table_->item(int(i) + 2, 0)
        ->setForeground(BackendColours::of(QString::fromStdString(r.backend)));
  }
  table_->resizeColumnsToContents();
  // Every row shown, no taller: the height left over goes to the charts.
  table_->setFixedHeight(table_->horizontalHeader()->sizeHint().height() +
                         table_->rowCount() * table_->verticalHeader()->defaultSectionSize() +
                         table_->horizontalScrollBar()->sizeHint().height() +
                         2 * table_->frameWidth() + 2);
}

void PlaygroundRegressionView::drawCharts() {
  const auto& e = experiment_;
  const int features = e.problem.features;
  const int pick = std::max(0, coefficientBox_->currentIndex());
  const bool distance = pick == features + 1;
  auto series = [&](const playground::RegressionTrajectory& t, bool loss) {
    std::vector<QPointF> pts;
    for (std::size_t k = 0; k < t.coefficients.size(); ++k) {
      double v = 0;
      if (loss)
        v = t.loss[k];
      else if (distance)
        v = playground::euclideanDistance(
            t.coefficients[k],
            e.gradientDescent.coefficients[std::min(k, e.gradientDescent.coefficients.size() - 1)]);
      else
        v = t.coefficients[k][std::size_t(pick)];
      pts.emplace_back(double(k), v);
    }
    return pts;
  };
  clearPlaygroundChart(loss_);
  clearPlaygroundChart(coefficients_);
  coefficients_.chart->setTitle(distance
                                    ? tr("Distance to fp64 GD at the same epoch")
                                    : tr("Coefficient %1").arg(coefficientBox_->currentText()));
  double lo = INFINITY, hi = -INFINITY, lossLo = INFINITY, lossHi = -INFINITY;
  auto track = [](const std::vector<QPointF>& pts, double& a, double& b, bool positive) {
    for (const QPointF& p : pts)
      if (std::isfinite(p.y()) && (!positive || p.y() > 0)) {
        a = std::min(a, p.y());
        b = std::max(b, p.y());
      }
  };
  for (std::size_t i = 0; i < e.runs.size(); ++i) {
    const auto& r = e.runs[i];
    const auto l = series(r.trajectory, true), c = series(r.trajectory, false);
    track(l, lossLo, lossHi, true);
    track(c, lo, hi, false);
    addPlaygroundLine(loss_, QString::fromStdString(r.backend), l,
                      BackendColours::of(QString::fromStdString(r.backend)), 1.6);
    addPlaygroundLine(coefficients_, QString::fromStdString(r.backend), c,
                      BackendColours::of(QString::fromStdString(r.backend)), 1.6);
  }
  const auto gdLoss = series(e.gradientDescent, true);
  track(gdLoss, lossLo, lossHi, true);
  addPlaygroundLine(loss_, tr("fp64 GD"), gdLoss, Qt::black, 1.4, Qt::DashLine);
  if (!distance) {
    const auto gd = series(e.gradientDescent, false);
    track(gd, lo, hi, false);
    addPlaygroundLine(coefficients_, tr("fp64 GD"), gd, Qt::black, 1.4, Qt::DashLine);
    const double ls = e.leastSquares.coefficients[std::size_t(pick)];
    lo = std::min(lo, ls);
    hi = std::max(hi, ls);
    addPlaygroundLine(coefficients_, tr("fp64 lstsq"),
                      {QPointF(0, ls), QPointF(std::max(1, e.problem.epochs), ls)}, Qt::black, 1.2,
                      Qt::DotLine);
  }
  setPlaygroundRange(loss_.x, 0, std::max(1, e.problem.epochs));
  setPlaygroundRange(coefficients_.x, 0, std::max(1, e.problem.epochs));
  setPlaygroundRange(loss_.y, lossLo, lossHi);
  setPlaygroundRange(coefficients_.y, lo, hi);
}

std::vector<Exportable> PlaygroundRegressionView::exportables() const {
  QTableWidget* table = table_;
  return {Exportable{QStringLiteral("playground-regression-table"), table->size(),
                     [table](QPainter& p, const QSize&) { table->render(&p); }},
          exportableChart(lossView_, QStringLiteral("playground-regression-loss"), QSize(900, 560)),
          exportableChart(coefficientView_, QStringLiteral("playground-regression-coefficients"),
                          QSize(900, 560))};
}

QString PlaygroundRegressionView::csv() const {
  return QString::fromStdString(playground::regressionCsv(experiment_));
}

}  // namespace paritylab::ui
