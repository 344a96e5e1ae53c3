#include "infermeta/multiary.h"

#include <cmath>
#include <string>

namespace phi {
namespace {

// The dims gla works on, read from q and v in either layout.
struct GlaDims {
  int64_t B, H, T, Dk, Dv;
};

std::string Layout(bool head_first) { return head_first ? "[B, H, T, D]" : "[B, T, H, D]"; }

DDim QkShape(const GlaDims& d, bool head_first) {
  return head_first ? DDim({d.B, d.H, d.T, d.Dk}) : DDim({d.B, d.T, d.H, d.Dk});
}
DDim VShape(const GlaDims& d, bool head_first) {
  return head_first ? DDim({d.B, d.H, d.T, d.Dv}) : DDim({d.B, d.T, d.H, d.Dv});
}

void CheckFloat(const MetaTensor& t, const char* op, const char* name) {
  PADDLE_ENFORCE(IsFloatingType(t.dtype()),
                 errors::InvalidType("%s: %s must be float16, bfloat16, float32 or float64, but got %s",
                                     op, name, DataTypeToString(t.dtype())));
}

void CheckDtypeOfQ(const MetaTensor& t, const char* op, const char* name, const MetaTensor& q) {
  PADDLE_ENFORCE(t.dtype() == q.dtype(),
                 errors::InvalidType("%s: %s must have the dtype of q (%s), but got %s", op, name,
                                     DataTypeToString(q.dtype()), DataTypeToString(t.dtype())));
}

void CheckShape(const MetaTensor& t, const DDim& want, const char* op, const char* name,
                const MetaTensor& q, const MetaTensor& v) {
  PADDLE_ENFORCE(t.dims() == want,
                 errors::InvalidArgument("%s: %s must have shape %s to match q of shape %s and v of "
                                         "shape %s, but got %s of shape %s",
                                         op, name, want.to_str(), q.dims().to_str(), v.dims().to_str(),
                                         name, t.dims().to_str()));
}

void CheckState(const MetaTensor& t, const GlaDims& d, const char* op, const char* name,
                const MetaTensor& q, const MetaTensor& v) {
  CheckShape(t, DDim({d.B, d.H, d.Dk, d.Dv}), op, name, q, v);
  PADDLE_ENFORCE(t.dtype() == DataType::FLOAT32,
                 errors::InvalidType("%s: %s must be float32, but got %s", op, name,
                                     DataTypeToString(t.dtype())));
}

// Checks q, k, v, gk and initial_state; returns the dims.
GlaDims CheckGlaInputs(const char* op, const MetaTensor& q, const MetaTensor& k, const MetaTensor& v,
                       const MetaTensor& gk, const MetaTensor& initial_state, bool head_first) {
  CheckFloat(q, op, "q");
  const DDim qd = q.dims(), vd = v.dims();
  PADDLE_ENFORCE(qd.size() == 4,
                 errors::InvalidArgument("%s: q must be a 4-D tensor %s, but got q of shape %s", op,
                                         Layout(head_first), qd.to_str()));
  PADDLE_ENFORCE(vd.size() == 4,
                 errors::InvalidArgument("%s: v must be a 4-D tensor %s, but got v of shape %s", op,
                                         Layout(head_first), vd.to_str()));
  GlaDims d{qd[0], head_first ? qd[1] : qd[2], head_first ? qd[2] : qd[1], qd[3], vd[3]};
  CheckShape(v, VShape(d, head_first), op, "v", q, v);
  CheckShape(k, QkShape(d, head_first), op, "k", q, v);
  CheckShape(gk, QkShape(d, head_first), op, "gk", q, v);
  CheckDtypeOfQ(k, op, "k", q);
  CheckDtypeOfQ(v, op, "v", q);
  CheckDtypeOfQ(gk, op, "gk", q);
  if (initial_state) CheckState(initial_state, d, op, "initial_state", q, v);
  return d;
}

}  // namespace

void GlaInferMeta(const MetaTensor& q, const MetaTensor& k, const MetaTensor& v, const MetaTensor& gk,
                  const MetaTensor& initial_state, double scale, bool output_final_state,
                  bool head_first, MetaTensor* o, MetaTensor* final_state) {
  const GlaDims d = CheckGlaInputs("gla", q, k, v, gk, initial_state, head_first);
  // Every front refuses it before (the signature layer); this is for the raw ops (torch.ops,
  // _C_ops), where a NaN scale gave NaN outputs (issue 31).
  PADDLE_ENFORCE(std::isfinite(scale),
                 errors::InvalidArgument("gla: argument 'scale' must be finite, but got %f", scale));
  o->set_dims(VShape(d, head_first));
  o->set_dtype(q.dtype());
  if (final_state && output_final_state) {
    final_state->set_dims(DDim({d.B, d.H, d.Dk, d.Dv}));
    final_state->set_dtype(DataType::FLOAT32);
  }
}

void GlaGradInferMeta(const MetaTensor& q, const MetaTensor& k, const MetaTensor& v,
                      const MetaTensor& gk, const MetaTensor& initial_state, const MetaTensor& o_grad,
                      const MetaTensor& final_state_grad, double scale, bool head_first,
                      MetaTensor* q_grad, MetaTensor* k_grad, MetaTensor* v_grad, MetaTensor* gk_grad,
                      MetaTensor* initial_state_grad) {
  const GlaDims d = CheckGlaInputs("gla_grad", q, k, v, gk, initial_state, head_first);
  CheckShape(o_grad, VShape(d, head_first), "gla_grad", "o_grad", q, v);
  CheckDtypeOfQ(o_grad, "gla_grad", "o_grad", q);
  if (final_state_grad) CheckState(final_state_grad, d, "gla_grad", "final_state_grad", q, v);
  if (q_grad) q_grad->share_meta(q);
  if (k_grad) k_grad->share_meta(k);
  if (v_grad) v_grad->share_meta(v);
  if (gk_grad) gk_grad->share_meta(gk);
  if (initial_state_grad && initial_state) initial_state_grad->share_meta(initial_state);
}

}  // namespace phi
