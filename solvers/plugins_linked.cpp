// The back-ends of crbench::model linked into the program (solvers/plugin.hpp): the tests, the
// Python module and programs built on the installed package take this archive member and with it
// the back-ends' objects. The crbench program defines linked_model_plugin itself
// (bench/plugins_loaded.cpp) and loads them as plugins.
#include <string>

#include "crbench/solvers/plugin.hpp"

#ifdef CRBENCH_HAVE_SICONOS
CRBENCH_PLUGIN_DECLARE(siconos_kernel);
#endif
#ifdef CRBENCH_HAVE_MUJOCO
CRBENCH_PLUGIN_DECLARE(mujoco);
#endif
#ifdef CRBENCH_HAVE_ODE
CRBENCH_PLUGIN_DECLARE(ode);
#endif
#ifdef CRBENCH_HAVE_BULLET
CRBENCH_PLUGIN_DECLARE(bullet);
#endif
CRBENCH_PLUGIN_DECLARE(siconos_numerics);

namespace crbench {

const void* linked_model_plugin(const std::string& name) {
  if (name == "siconos_numerics") return crbench_plugin_siconos_numerics();
#ifdef CRBENCH_HAVE_SICONOS
  if (name == "siconos_kernel") return crbench_plugin_siconos_kernel();
#endif
#ifdef CRBENCH_HAVE_MUJOCO
  if (name == "mujoco") return crbench_plugin_mujoco();
#endif
#ifdef CRBENCH_HAVE_ODE
  if (name == "ode") return crbench_plugin_ode();
#endif
#ifdef CRBENCH_HAVE_BULLET
  if (name == "bullet") return crbench_plugin_bullet();
#endif
  return nullptr;
}

}  // namespace crbench
