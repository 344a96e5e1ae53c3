"""paddle_ops' kernels inside other frameworks, on their own tensors and with their autograd.

- ``paddle_ops.integrations.paddle``: real PaddlePaddle (a Paddle custom-operator extension,
  built against the installed Paddle at first import).
- ``paddle_ops.integrations.jax``: JAX (XLA FFI handlers, built against the installed jaxlib at
  first import).
- ``paddle_ops.integrations.torch``: PyTorch (``torch.library`` custom ops).

The Paddle and JAX integrations run the kernels in one runtime library, loaded once per process
(``_runtime.py``).

Each integration is imported on demand and needs its framework installed; importing this
package imports none of them.
"""
