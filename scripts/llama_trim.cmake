# Loaded by scripts/setup.sh into the llama-cpp-python build (CMAKE_PROJECT_INCLUDE).
# The Python binding loads only libllama (and its ggml libraries): llama.cpp's "common" helper
# library is forced on by llama-cpp-python's CMakeLists but never loaded, so a plain variable
# here shadows that cache entry and saves compiling it.
set(LLAMA_BUILD_COMMON OFF)
