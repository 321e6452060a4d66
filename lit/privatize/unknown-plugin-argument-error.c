// An argument the plugin does not know is an error naming what it accepts.
// REQUIRES: clang-plugin
// RUN: not %clang -fsyntax-only -fplugin=%ampi_plugin -fplugin-arg-ampi-privatize-Wno-ampi-typo %s 2>&1 | FileCheck %s

// CHECK: error: unknown argument 'Wno-ampi-typo' for plugin 'ampi-privatize'; expected report=FILE or Wno-<group>, with <group> one of ampi-hidden-state, ampi-unprivatized, ampi-pragma, ampi-shared-redecl
int x;
