"""paddle_ops' kernels inside other frameworks, on their own tensors and with their autograd.

- ``paddle_ops.integrations.paddle``: real PaddlePaddle (a Paddle custom-operator extension,
  built against the installed Paddle at first import).

Each integration is imported on demand and needs its framework installed; importing this
package imports none of them.
"""
