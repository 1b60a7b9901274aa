#include "core/nn/fp64_gpt.h"

#include "core/nn/fp64_layer_impl.h"

namespace paritylab::nn {

using fp64::Array;
using fp64::ConstArray;
using fp64::ConstMatrix;
using fp64::Matrix;

namespace {

// out = a + b, elementwise, out shaped as a.
void addInto(DoubleTensor& out, const DoubleTensor& a, const DoubleTensor& b) {
  out.resize(a.shape);
  Array(out.data(), Eigen::Index(out.size())) =
      ConstArray(a.data(), Eigen::Index(a.size())) + ConstArray(b.data(), Eigen::Index(b.size()));
}

void append(std::vector<int>& ids, const std::vector<int>& more) {
  ids.insert(ids.end(), more.begin(), more.end());
}

}  // namespace

Fp64GptBlock::Fp64GptBlock(Parts parts) : p_(std::move(parts)) {}

std::vector<int> Fp64GptBlock::paramIds() const {
  std::vector<int> ids;
  for (const Fp64Layer* part : std::initializer_list<const Fp64Layer*>{
           p_.ln1.get(), p_.attention.get(), p_.ln2.get(), p_.fc.get(), p_.proj.get()})
    append(ids, part->paramIds());
  return ids;
}

void Fp64GptBlock::sites(Fp64Sites& into) const {
  p_.attention->sites(into);
  p_.fc->sites(into);
  p_.proj->sites(into);
}

void Fp64GptBlock::setNeedInputGrad(bool need) {
  needInputGrad_ = need;
  p_.ln1->setNeedInputGrad(need);
}

const DoubleTensor& Fp64GptBlock::forward(const DoubleTensor& x, Fp64Params& params) {
  addInto(x1_, x, p_.attention->forward(p_.ln1->forward(x, params), params));
  const DoubleTensor& f = p_.fc->forward(p_.ln2->forward(x1_, params), params);
  addInto(y_, x1_, p_.proj->forward(gelu_.forward(f, params), params));
  return y_;
}

const DoubleTensor& Fp64GptBlock::backward(const DoubleTensor& dy, Fp64Params& params) {
  // The MLP branch; the residual passes dy on unchanged.
  const DoubleTensor& dh2 =
      p_.fc->backward(gelu_.backward(p_.proj->backward(dy, params), params), params);
  addInto(dx1_, dy, p_.ln2->backward(dh2, params));
  // The attention branch.
  const DoubleTensor& dAttn = p_.ln1->backward(p_.attention->backward(dx1_, params), params);
  if (!needInputGrad_) return dx_;
  addInto(dx_, dx1_, dAttn);
  return dx_;
}

Fp64Gpt::Fp64Gpt(Parts parts, int vocab, int tiedSite)
    : p_(std::move(parts)), vocab_(vocab), site_(tiedSite) {}

std::vector<int> Fp64Gpt::paramIds() const {
  std::vector<int> ids = p_.embedding->paramIds();  // the tied head's weight among them
  for (const auto& block : p_.blocks) append(ids, block->paramIds());
  append(ids, p_.lnF->paramIds());
  if (p_.untiedHead) append(ids, p_.untiedHead->paramIds());
  return ids;
}

void Fp64Gpt::sites(Fp64Sites& into) const {
  for (const auto& block : p_.blocks) block->sites(into);
  if (p_.untiedHead)
    p_.untiedHead->sites(into);
  else
    into.set(site_, &logits_.values, &dxF_.values);
}

const DoubleTensor& Fp64Gpt::forward(const DoubleTensor& x, Fp64Params& params) {
  const DoubleTensor* h = &p_.embedding->forward(x, params);
  for (auto& block : p_.blocks) h = &block->forward(*h, params);
  const DoubleTensor& xf = p_.lnF->forward(*h, params);
  xF_ = &xf;
  if (p_.untiedHead) return p_.untiedHead->forward(xf, params);
  // logits [N, vocab] = xf [N, C] wte[vocab, C]^T
  const int c = xf.shape[2], n = int(xf.size() / std::size_t(c));
  logits_.resize(Shape{xf.shape[0], xf.shape[1], vocab_});
  Matrix(logits_.data(), n, vocab_).noalias() =
      ConstMatrix(xf.data(), n, c) *
      ConstMatrix(params.value(p_.embedding->tokenWeightId()), vocab_, c).transpose();
  return logits_;
}

const DoubleTensor& Fp64Gpt::backward(const DoubleTensor& dy, Fp64Params& params) {
  const DoubleTensor& xf = *xF_;
  const int c = xf.shape[2], n = int(xf.size() / std::size_t(c));
  const int wte = p_.embedding->tokenWeightId();
  const DoubleTensor* g = nullptr;
  if (p_.untiedHead) {
    g = &p_.untiedHead->backward(dy, params);
  } else {  // dxf [N, C] = dlogits [N, vocab] wte [vocab, C]
    dxF_.resize(xf.shape);
    Matrix(dxF_.data(), n, c).noalias() =
        ConstMatrix(dy.data(), n, vocab_) * ConstMatrix(params.value(wte), vocab_, c);
    g = &dxF_;
  }
  g = &p_.lnF->backward(*g, params);
  for (auto it = p_.blocks.rbegin(); it != p_.blocks.rend(); ++it) g = &(*it)->backward(*g, params);
  p_.embedding->backward(*g, params);  // overwrites wte's gradient with the embedding's share
  if (!p_.untiedHead)                  // dwte [vocab, C] += dlogits^T [vocab, N] xf [N, C]
    Matrix(params.grad(wte), vocab_, c).noalias() +=
        ConstMatrix(dy.data(), n, vocab_).transpose() * ConstMatrix(xf.data(), n, c);
  return none_;
}

}  // namespace paritylab::nn
