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

// The number of states: B, or the number of sequences of a varlen call.
void CheckState(const MetaTensor& t, const GlaDims& d, int64_t states, const char* op, const char* name,
                const MetaTensor& q, const MetaTensor& v) {
  CheckShape(t, DDim({states, d.H, d.Dk, d.Dv}), op, name, q, v);
  PADDLE_ENFORCE(t.dtype() == DataType::FLOAT32,
                 errors::InvalidType("%s: %s must be float32, but got %s", op, name,
                                     DataTypeToString(t.dtype())));
}

// gk: q's dtype, or float32 beside 16-bit q (as fla takes it).
void CheckGateDtype(const MetaTensor& gk, const char* op, const MetaTensor& q) {
  const bool sixteen = q.dtype() == DataType::FLOAT16 || q.dtype() == DataType::BFLOAT16;
  PADDLE_ENFORCE(gk.dtype() == q.dtype() || (sixteen && gk.dtype() == DataType::FLOAT32),
                 errors::InvalidType("%s: gk must have the dtype of q (%s)%s, but got %s", op,
                                     DataTypeToString(q.dtype()), sixteen ? " or be float32" : "",
                                     DataTypeToString(gk.dtype())));
}

// The number of sequences of a varlen call (cu_seqlens: 1-D int32 or int64, N + 1 >= 2 entries,
// B = 1); B without cu_seqlens. The values are the kernel's to check.
int64_t CheckSeqlens(const MetaTensor& cu_seqlens, const GlaDims& d, const char* op, const MetaTensor& q) {
  if (!cu_seqlens) return d.B;
  PADDLE_ENFORCE(cu_seqlens.dtype() == DataType::INT32 || cu_seqlens.dtype() == DataType::INT64,
                 errors::InvalidType("%s: cu_seqlens must be int32 or int64, but got %s", op,
                                     DataTypeToString(cu_seqlens.dtype())));
  const DDim cd = cu_seqlens.dims();
  PADDLE_ENFORCE(cd.size() == 1 && cd[0] >= 2,
                 errors::InvalidArgument("%s: cu_seqlens must be a 1-D tensor of N + 1 >= 2 offsets, but got shape %s",
                                         op, cd.to_str()));
  PADDLE_ENFORCE(d.B == 1,
                 errors::InvalidArgument("%s: with cu_seqlens the sequences are packed along T and the batch must be "
                                         "1, but got q of shape %s (B = %d)",
                                         op, q.dims().to_str(), d.B));
  return cd[0] - 1;
}

// Checks q, k, v, gk, initial_state and cu_seqlens; returns the dims and the number of states.
GlaDims CheckGlaInputs(const char* op, const MetaTensor& q, const MetaTensor& k, const MetaTensor& v,
                       const MetaTensor& gk, const MetaTensor& initial_state, const MetaTensor& cu_seqlens,
                       bool head_first, int64_t* states) {
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
  CheckGateDtype(gk, op, q);
  *states = CheckSeqlens(cu_seqlens, d, op, q);
  if (initial_state) CheckState(initial_state, d, *states, op, "initial_state", q, v);
  return d;
}

}  // namespace

void GlaInferMeta(const MetaTensor& q, const MetaTensor& k, const MetaTensor& v, const MetaTensor& gk,
                  const MetaTensor& initial_state, const MetaTensor& cu_seqlens, double scale,
                  bool output_final_state, bool head_first, MetaTensor* o, MetaTensor* final_state) {
  int64_t states = 0;
  const GlaDims d = CheckGlaInputs("gla", q, k, v, gk, initial_state, cu_seqlens, head_first, &states);
  // Every front refuses it before (the signature layer); this is for the raw ops (torch.ops,
  // _C_ops), where a NaN scale gave NaN outputs (issue 31).
  PADDLE_ENFORCE(std::isfinite(scale),
                 errors::InvalidArgument("gla: argument 'scale' must be finite, but got %f", scale));
  o->set_dims(VShape(d, head_first));
  o->set_dtype(q.dtype());
  if (final_state && output_final_state) {
    final_state->set_dims(DDim({states, d.H, d.Dk, d.Dv}));
    final_state->set_dtype(DataType::FLOAT32);
  }
}

void GlaGradInferMeta(const MetaTensor& q, const MetaTensor& k, const MetaTensor& v,
                      const MetaTensor& gk, const MetaTensor& initial_state, const MetaTensor& cu_seqlens,
                      const MetaTensor& o_grad, const MetaTensor& final_state_grad, double scale,
                      bool head_first, MetaTensor* q_grad, MetaTensor* k_grad, MetaTensor* v_grad,
                      MetaTensor* gk_grad, MetaTensor* initial_state_grad) {
  int64_t states = 0;
  const GlaDims d = CheckGlaInputs("gla_grad", q, k, v, gk, initial_state, cu_seqlens, head_first, &states);
  CheckShape(o_grad, VShape(d, head_first), "gla_grad", "o_grad", q, v);
  CheckDtypeOfQ(o_grad, "gla_grad", "o_grad", q);
  if (final_state_grad) CheckState(final_state_grad, d, states, "gla_grad", "final_state_grad", q, v);
  if (q_grad) q_grad->share_meta(q);
  if (k_grad) k_grad->share_meta(k);
  if (v_grad) v_grad->share_meta(v);
  if (gk_grad) gk_grad->share_meta(gk);
  if (initial_state_grad && initial_state) initial_state_grad->share_meta(initial_state);
}

}  // namespace phi
