/**
 * The harness's Python modules: module name in the interpreter -> file in
 * src/python. Pyodide gets them written to /lib/recode; native python3 runs
 * harness.py from this folder, which imports the others beside it.
 */
export const HARNESS_FILES = {
  recode_harness: "harness.py",
  recode_check: "recode_check.py",
  recode_guard: "recode_guard.py",
  recode_frames: "recode_frames.py",
  recode_stack: "recode_stack.py",
  recode_readers: "recode_readers.py",
  recode_frame_builtins: "recode_frame_builtins.py",
  recode_testpy: "recode_testpy.py",
  recode_testtext: "recode_testtext.py",
  recode_touch: "recode_touch.py",
  recode_super: "recode_super.py",
  recode_module_fixtures: "recode_module_fixtures.py",
} as const;
