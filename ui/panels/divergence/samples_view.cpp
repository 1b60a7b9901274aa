#include "ui/panels/divergence/samples_view.h"

#include <QAbstractTextDocumentLayout>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QTextBrowser>
#include <QTextDocument>
#include <QVBoxLayout>
#include <cmath>

#include "ui/charts/backend_colours.h"

namespace paritylab::ui {
namespace {

const char* const kMarkStyle = "background-color:#ffd7d5; color:#cf222e; font-weight:bold";
const char* const kAfterStyle = "color:#8c959f";

// Bytes of generated text as HTML: escaped, a newline as a faint ↵ and a line break.
QString textHtml(const std::string& bytes) {
  QString html = QString::fromUtf8(bytes.data(), qsizetype(bytes.size())).toHtmlEscaped();
  html.replace(QLatin1Char('\n'), QStringLiteral("<span style=\"color:#afb8c1\">↵</span><br>"));
  html.replace(QLatin1Char('\t'), QStringLiteral("&nbsp;&nbsp;&nbsp;&nbsp;"));
  html.replace(QStringLiteral("  "), QStringLiteral("&nbsp; "));
  return html;
}

// The text with its first differing byte marked and the rest grey.
QString markedHtml(const study::BackendSample& sample) {
  if (!sample.firstDifference) return textHtml(sample.text);
  const std::size_t at = *sample.firstDifference;
  if (at >= sample.text.size())  // the reference's text goes on: this one ended first
    return textHtml(sample.text) +
           QStringLiteral("<span style=\"%1\">[ends]</span>").arg(QLatin1String(kMarkStyle));
  const std::string marked = sample.text.substr(at, 1);
  return textHtml(sample.text.substr(0, at)) +
         QStringLiteral("<span style=\"%1\">%2</span>")
             .arg(QLatin1String(kMarkStyle),
                  marked == "\n" ? QStringLiteral("↵<br>") : textHtml(marked)) +
         QStringLiteral("<span style=\"%1\">%2</span>")
             .arg(QLatin1String(kAfterStyle), textHtml(sample.text.substr(at + 1)));
}

// "8 characters (median over 2 seeds; 1 identical)"; over pairs of seeds for the floor.
QString agreementText(const study::SampleAgreement& a, bool pairs = false) {
  const long characters = std::lround(a.medianAgreeing);
  const QString over =
      pairs ? (a.seeds == 1 ? QObject::tr("pair of seeds") : QObject::tr("pairs of seeds"))
            : (a.seeds == 1 ? QObject::tr("seed") : QObject::tr("seeds"));
  return (characters == 1 ? QObject::tr("1 character")
                          : QObject::tr("%1 characters").arg(characters)) +
         QObject::tr(" (median over %1 %2; %3 identical)").arg(a.seeds).arg(over).arg(a.identical);
}

// The prompt on one line, as typed in a spec: a newline as \n, a tab as \t.
QString promptHtml(const std::string& bytes) {
  QString text = QString::fromUtf8(bytes.data(), qsizetype(bytes.size()));
  text.replace(QLatin1Char('\n'), QStringLiteral("\\n"))
      .replace(QLatin1Char('\t'), QStringLiteral("\\t"));
  return text.toHtmlEscaped();
}

QString swatch(const std::string& backend) {
  return QStringLiteral("<span style=\"color:%1\">■</span>&nbsp;")
      .arg(BackendColours::of(QString::fromStdString(backend)).name());
}

}  // namespace

QString samplesHtml(const study::SamplesReport& samples, std::optional<std::uint64_t> seed) {
  const QString prompt = promptHtml(samples.prompt);
  const QString how =
      samples.temperature > 0
          ? QObject::tr(
                "sampled at temperature %1 (the same random draws for every run, so two texts "
                "part where the models do)")
                .arg(samples.temperature, 0, 'g', 3)
          : QObject::tr("greedily (the most likely next token each time)");
  QString html = QObject::tr(
                     "<p>What each backend's model writes (emulated backends): it continues the "
                     "prompt <span style=\"font-family:monospace; background:#f6f8fa\">%1</span> "
                     "%2, %3 characters. In each text the first character that differs from "
                     "%4's at the same seed is <span style=\"%5\">marked</span>, <span "
                     "style=\"%6\">what follows is grey</span>.</p>")
                     .arg(prompt, how)
                     .arg(samples.length)
                     .arg(QString::fromStdString(samples.reference), QLatin1String(kMarkStyle),
                          QLatin1String(kAfterStyle));
  QStringList agreement;
  for (const study::SampleAgreement& a : samples.agreement)
    agreement << swatch(a.backend) + QObject::tr("%1 writes what %2 writes for %3")
                                         .arg(QString::fromStdString(a.backend),
                                              QString::fromStdString(samples.reference),
                                              agreementText(a));
  if (samples.seedFloor)
    agreement << QObject::tr("two seeds of %1 agree for %2: the floor, two different models")
                     .arg(QString::fromStdString(samples.reference),
                          agreementText(*samples.seedFloor, true));
  if (!agreement.isEmpty()) html += QStringLiteral("<p>") + agreement.join("<br>") + "</p>";

  for (const study::SeedSamples& s : samples.seeds) {
    if (seed && s.seed != *seed) continue;
    html += QObject::tr("<h4>Seed %1</h4>").arg(s.seed);
    html += QStringLiteral("<table cellspacing=\"0\" cellpadding=\"4\" width=\"100%\">");
    // The reference first, then the study's order.
    std::vector<const study::BackendSample*> rows;
    for (const study::BackendSample& b : s.backends)
      if (b.backend == samples.reference) rows.push_back(&b);
    for (const study::BackendSample& b : s.backends)
      if (b.backend != samples.reference) rows.push_back(&b);
    for (const study::BackendSample* b : rows) {
      QString where;
      if (b->backend == samples.reference)
        where = QObject::tr("reference");
      else if (b->firstDifference)
        where = QObject::tr("parts at %1").arg(*b->firstDifference + 1);
      else if (std::any_of(
                   s.backends.begin(), s.backends.end(),
                   [&](const study::BackendSample& x) { return x.backend == samples.reference; }))
        where = QObject::tr("identical");
      html +=
          QStringLiteral(
              "<tr><td valign=\"top\" width=\"150\">%1<b>%2</b><br><span "
              "style=\"color:#57606a\">%3</span></td><td valign=\"top\" "
              "style=\"font-family:monospace\">%4</td></tr>")
              .arg(swatch(b->backend), QString::fromStdString(b->backend), where, markedHtml(*b));
    }
    html += QStringLiteral("</table>");
  }
  return html;
}

SamplesView::SamplesView(QWidget* parent) : QWidget(parent) {
  seed_ = new QComboBox;
  seed_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  text_ = new QTextBrowser;
  text_->setOpenLinks(false);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Seed")));
  top->addWidget(seed_);
  top->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);
  layout->addLayout(top);
  layout->addWidget(text_, 1);
  connect(seed_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  setReport({});
}

void SamplesView::setReport(const study::DivergenceReport& report) {
  const QVariant previous = seed_->currentData();
  samples_ = report.samples;
  empty_.clear();
  if (!samples_) {
    empty_ = tr("Samples are written by language models: this study trains an image classifier.");
  } else if (samples_->seeds.empty()) {
    QStringList why;
    for (const std::string& note : samples_->notes) why << QString::fromStdString(note);
    empty_ = tr("No run of this study kept a sample") +
             (why.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + why.join("; ") + ".");
  }
  QSignalBlocker block(seed_);
  seed_->clear();
  seed_->addItem(tr("All seeds"));
  if (samples_)
    for (const study::SeedSamples& s : samples_->seeds)
      seed_->addItem(QString::number(s.seed), QVariant::fromValue<qulonglong>(s.seed));
  const int again = previous.isValid() ? seed_->findData(previous) : -1;
  seed_->setCurrentIndex(std::max(0, again));
  seed_->setEnabled(hasSamples());
  refresh();
}

std::optional<std::uint64_t> SamplesView::shownSeed() const {
  const QVariant data = seed_->currentData();
  if (!data.isValid()) return std::nullopt;
  return std::uint64_t(data.toULongLong());
}

QString SamplesView::html() const {
  if (!hasSamples()) return QStringLiteral("<p>%1</p>").arg(empty_.toHtmlEscaped());
  return samplesHtml(*samples_, shownSeed());
}

void SamplesView::refresh() {
  text_->setHtml(html());
}

int SamplesView::documentHeight(int width) const {
  QTextDocument doc;
  doc.setDefaultFont(font());
  doc.setHtml(html());
  doc.setTextWidth(width);
  return int(std::ceil(doc.size().height()));
}

void SamplesView::paintTo(QPainter& p, const QSize& size) const {
  p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
  QTextDocument doc;
  doc.setDefaultFont(font());
  doc.setHtml(html());
  doc.setTextWidth(size.width());
  doc.drawContents(&p, QRectF(QPointF(0, 0), QSizeF(size)));
}

Exportable exportableSamples(const SamplesView* view) {
  return {QStringLiteral("divergence-samples"), QSize(1000, view->documentHeight(1000)),
          [view](QPainter& p, const QSize& s) { view->paintTo(p, s); }};
}

}  // namespace paritylab::ui
