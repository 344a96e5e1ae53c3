#include "infermeta/ternary.h"

namespace phi {
namespace {

void CheckSameDtype(const MetaTensor& t, const char* name, const MetaTensor& x) {
  PADDLE_ENFORCE(t.dtype() == x.dtype(),
                 errors::InvalidType("pscan: %s must have the dtype of x (%s), but got %s", name,
                                     DataTypeToString(x.dtype()), DataTypeToString(t.dtype())));
}

}  // namespace

void PscanInferMeta(const MetaTensor& a, const MetaTensor& x, const MetaTensor& initial_state,
                    bool reverse, MetaTensor* out) {
  const DDim xd = x.dims();
  PADDLE_ENFORCE(IsFloatingType(x.dtype()),
                 errors::InvalidType("pscan: x must be float16, bfloat16, float32 or float64, but got %s",
                                     DataTypeToString(x.dtype())));
  PADDLE_ENFORCE(xd.size() == 3,
                 errors::InvalidArgument("pscan: x must be a 3-D tensor [N, T, D], but got x of shape %s",
                                         xd.to_str()));
  const DDim ad = a.dims();
  const bool per_step = ad.size() == 2 && ad[0] == xd[0] && ad[1] == xd[1];
  PADDLE_ENFORCE(per_step || ad == xd,
                 errors::InvalidArgument("pscan: a must have shape [N, T] = %s or [N, T, D] = %s to match "
                                         "x of shape %s, but got a of shape %s",
                                         DDim({xd[0], xd[1]}).to_str(), xd.to_str(), xd.to_str(),
                                         ad.to_str()));
  CheckSameDtype(a, "a", x);
  if (initial_state) {
    const DDim hd = initial_state.dims();
    PADDLE_ENFORCE(hd == DDim({xd[0], xd[2]}),
                   errors::InvalidArgument("pscan: initial_state must have shape [N, D] = %s to match x of "
                                           "shape %s, but got initial_state of shape %s",
                                           DDim({xd[0], xd[2]}).to_str(), xd.to_str(), hd.to_str()));
    CheckSameDtype(initial_state, "initial_state", x);
  }
  out->set_dims(xd);
  out->set_dtype(x.dtype());
}

void PscanGradInferMeta(const MetaTensor& a, const MetaTensor& initial_state, const MetaTensor& out,
                        const MetaTensor& out_grad, bool reverse, MetaTensor* a_grad,
                        MetaTensor* x_grad, MetaTensor* initial_state_grad) {
  PADDLE_ENFORCE(out_grad.dims() == out.dims(),
                 errors::InvalidArgument("pscan_grad: out_grad must have the shape of out %s, but got %s",
                                         out.dims().to_str(), out_grad.dims().to_str()));
  PADDLE_ENFORCE(out_grad.dtype() == out.dtype(),
                 errors::InvalidType("pscan_grad: out_grad must have the dtype of out (%s), but got %s",
                                     DataTypeToString(out.dtype()), DataTypeToString(out_grad.dtype())));
  if (a_grad) a_grad->share_meta(a);
  if (x_grad) x_grad->share_meta(out);
  if (initial_state_grad && initial_state) initial_state_grad->share_meta(initial_state);
}

}  // namespace phi
