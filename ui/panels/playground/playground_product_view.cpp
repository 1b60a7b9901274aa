#include "ui/panels/playground/playground_product_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>
#include <stdexcept>

#include "core/playground/playground_export.h"
#include "ui/session/core_errors.h"

namespace paritylab::ui {
namespace {

// Light to strong orange by the order of magnitude of the ulp distance.
QColor highlight(std::int64_t ulps) {
  const double level = std::min(1.0, std::log10(double(std::max<std::int64_t>(ulps, 1))) / 6.0);
  return QColor::fromHsvF(0.08, 0.15 + 0.55 * level, 1.0);
}

}  // namespace

PlaygroundProductView::PlaygroundProductView(QWidget* parent)
    : QWidget(parent),
      aEdit_(new QPlainTextEdit),
      bEdit_(new QPlainTextEdit),
      error_(new QLabel),
      legend_(new QLabel),
      table_(new QTableWidget) {
  for (QPlainTextEdit* e : {aEdit_, bEdit_}) {
    e->setFixedHeight(76);
    e->setTabChangesFocus(true);
    e->setToolTip(
        tr("Rows on lines (or separated by ';'), values by commas or spaces; "
           "numpy/jax literals such as [[0.37, 0.16], [0.47, 0.17]] work too"));
  }
  auto* multiply = new QPushButton(tr("Multiply under every backend"));
  auto* example = new QPushButton(tr("jax issue 9973 example"));
  connect(multiply, &QPushButton::clicked, this, [this] { run(); });
  connect(example, &QPushButton::clicked, this, [this] {
    loadJaxExample();
    run();
  });
  auto* inputs = new QHBoxLayout;
  auto* aBox = new QVBoxLayout;
  aBox->addWidget(new QLabel(tr("A [m × k]")));
  aBox->addWidget(aEdit_);
  auto* bBox = new QVBoxLayout;
  bBox->addWidget(new QLabel(tr("B [k × n]")));
  bBox->addWidget(bEdit_);
  auto* buttons = new QVBoxLayout;
  buttons->addStretch();
  buttons->addWidget(multiply);
  buttons->addWidget(example);
  inputs->addLayout(aBox, 1);
  inputs->addLayout(bBox, 1);
  inputs->addLayout(buttons);

  error_->setStyleSheet(QStringLiteral("color: #cf222e"));
  error_->setWordWrap(true);
  error_->hide();
  legend_->setWordWrap(true);
  legend_->setTextFormat(Qt::RichText);
  table_->setAlternatingRowColors(false);
  table_->setWordWrap(true);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(inputs);
  layout->addWidget(error_);
  layout->addWidget(legend_);
  layout->addWidget(table_, 1);
  loadJaxExample();
  run();
}

void PlaygroundProductView::loadJaxExample() {
  aEdit_->setPlainText(QStringLiteral("[[0.3744, 0.1656],\n [0.4707, 0.1663]]"));
  bEdit_->setPlainText(QStringLiteral("[[0.3946, 0.1186],\n [0.1569, 0.3145]]"));
}

bool PlaygroundProductView::run() {
  try {
    const auto a = playground::parseMatrix(aEdit_->toPlainText().toStdString(), "A");
    const auto b = playground::parseMatrix(bEdit_->toPlainText().toStdString(), "B");
    if (std::size_t(a.rows) * std::size_t(b.cols) > 64)
      throw std::invalid_argument("the product has " + std::to_string(a.rows * b.cols) +
                                  " elements; the side-by-side table shows up to 64 (use "
                                  "paritylab-cli playground product for larger ones)");
    comparison_ = playground::compareProducts(a, b, backends::presetPolicies());
  } catch (const std::invalid_argument& e) {
    error_->setText(tr("Not multiplied: %1").arg(ui::errorText(e)));
    error_->show();
    return false;
  }
  error_->hide();
  int differing = 0;
  for (bool d : comparison_.differs) differing += d;
  legend_->setText(
      tr("C = A·B [%1 × %2] as each backend's Dense-layer matmul forms it (<b>emulated</b>: "
         "operands rounded, fp32 accumulation, outputs stored as the backend stores them; fp8 "
         "with per-tensor scaling). Each cell: value, fp32 bits, and the distance in ulps from "
         "%3; <span style='background:#ffd8b0'>highlighted</span> where it differs. %4 of %5 "
         "elements differ between backends.")
          .arg(comparison_.rows())
          .arg(comparison_.cols())
          .arg(QString::fromStdString(comparison_.reference))
          .arg(differing)
          .arg(comparison_.differs.size()));
  fillTable();
  return true;
}

void PlaygroundProductView::fillTable() {
  const auto& c = comparison_;
  const int elements = c.rows() * c.cols();
  table_->clear();
  table_->setRowCount(int(c.products.size()) + 1);
  table_->setColumnCount(elements);
  QStringList columns, rows{tr("exact (fp64)")};
  for (int i = 0; i < c.rows(); ++i)
    for (int j = 0; j < c.cols(); ++j)
      columns << QStringLiteral("C[%1,%2]%3")
                     .arg(i)
                     .arg(j)
                     .arg(c.differs[std::size_t(i * c.cols() + j)] ? QStringLiteral(" ≠")
                                                                   : QString());
  for (const auto& p : c.products) rows << QString::fromStdString(p.backend);
  table_->setHorizontalHeaderLabels(columns);
  table_->setVerticalHeaderLabels(rows);
  for (int e = 0; e < elements; ++e) {
    auto* exact = new QTableWidgetItem(QString::number(c.exact[std::size_t(e)], 'g', 17));
    exact->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    table_->setItem(0, e, exact);
    for (std::size_t p = 0; p < c.products.size(); ++p) {
      const float v = c.products[p].product.values[std::size_t(e)];
      const std::int64_t ulps = c.products[p].ulpsFromReference[std::size_t(e)];
      QString text = QStringLiteral("%1\n%2")
                         .arg(double(v), 0, 'g', 9)
                         .arg(QString::fromStdString(playground::hexBits(v)));
      text += ulps == 0  ? tr("\n= %1").arg(QString::fromStdString(c.reference))
              : ulps < 0 ? tr("\nNaN")
                         : tr("\n%1 ulp").arg(ulps);
      auto* item = new QTableWidgetItem(text);
      item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
      item->setFont(QFont(QStringLiteral("monospace")));
      if (ulps != 0) item->setBackground(highlight(ulps));
      table_->setItem(int(p) + 1, e, item);
    }
  }
}

std::vector<Exportable> PlaygroundProductView::exportables() const {
  QTableWidget* table = table_;
  return {Exportable{QStringLiteral("playground-product"), table->size(),
                     [table](QPainter& p, const QSize&) { table->render(&p); }}};
}

QString PlaygroundProductView::csv() const {
  return QString::fromStdString(playground::productCsv(comparison_));
}

}  // namespace paritylab::ui
