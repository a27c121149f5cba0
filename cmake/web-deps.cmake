# The dependencies of the WebAssembly build (emcmake cmake, src/web/build.sh): fmt and nlohmann/json
# from Debian's headers, header-only, and Lua 5.1 compiled from Debian's patched source package
# (RLSIM_LUA_SOURCE_DIR, fetched by src/web/build.sh with `apt-get source lua5.1`). Only those two
# folders of /usr/include are visible to the compiler, never the host's C library headers.
set(RLSIM_LUA_SOURCE_DIR "" CACHE PATH "Lua 5.1 sources, Debian's source package lua5.1 with its patches")
if(NOT EXISTS "${RLSIM_LUA_SOURCE_DIR}/src/lapi.c")
  message(FATAL_ERROR "RLSIM_LUA_SOURCE_DIR must name the lua5.1 source package's folder "
                      "(src/web/build.sh fetches it), not '${RLSIM_LUA_SOURCE_DIR}'")
endif()
enable_language(C)

set(RLSIM_HOST_HEADERS ${CMAKE_BINARY_DIR}/host-include)
file(MAKE_DIRECTORY ${RLSIM_HOST_HEADERS})
foreach(dir fmt nlohmann)
  if(NOT EXISTS /usr/include/${dir})
    message(FATAL_ERROR "/usr/include/${dir} is missing: install libfmt-dev and nlohmann-json3-dev")
  endif()
  file(CREATE_LINK /usr/include/${dir} ${RLSIM_HOST_HEADERS}/${dir} SYMBOLIC)
endforeach()
add_library(fmt::fmt INTERFACE IMPORTED)
target_include_directories(fmt::fmt INTERFACE ${RLSIM_HOST_HEADERS})
target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${RLSIM_HOST_HEADERS})

# Lua 5.1 as Redis embeds it, as the native build links it (liblua5.1-0-dev): the library files
# only (no interpreter, compiler or lua.c's main).
# RLSIM_WASM_EXCEPTIONS=ON: WebAssembly's own exceptions (-fwasm-exceptions) instead of emscripten's
# JavaScript-based ones, with Lua compiled as C++ (luaconf.h: its errors are C++ throws, its API
# extern "C"), since emscripten 3.1.6 supports no setjmp/longjmp beside them.
option(RLSIM_WASM_EXCEPTIONS "WebAssembly build: -fwasm-exceptions instead of JavaScript-based ones" ON)
if(RLSIM_WASM_EXCEPTIONS)
  set(RLSIM_EH_FLAGS -fwasm-exceptions)
  add_link_options(-sSUPPORT_LONGJMP=0)
else()
  set(RLSIM_EH_FLAGS -fexceptions)
endif()
file(GLOB lua_sources ${RLSIM_LUA_SOURCE_DIR}/src/*.c)
list(FILTER lua_sources EXCLUDE REGEX "/(lua|luac|print)\\.c$")
if(RLSIM_WASM_EXCEPTIONS)
  set_source_files_properties(${lua_sources} PROPERTIES LANGUAGE CXX)
endif()
add_library(rlsim_lua51 STATIC ${lua_sources})
# add_compile_options below reaches only the targets defined after it: Lua gets the exception
# model here (with WebAssembly's exceptions its errors are throws that its own catch must see).
target_compile_options(rlsim_lua51 PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${RLSIM_EH_FLAGS}> -mtail-call)

set(RLSIM_LUA_HEADERS ${CMAKE_BINARY_DIR}/lua-include)
file(MAKE_DIRECTORY ${RLSIM_LUA_HEADERS})
foreach(header lua.h luaconf.h lualib.h lauxlib.h)
  file(COPY ${RLSIM_LUA_SOURCE_DIR}/src/${header} DESTINATION ${RLSIM_LUA_HEADERS})
endforeach()
file(COPY ${RLSIM_LUA_SOURCE_DIR}/etc/lua.hpp DESTINATION ${RLSIM_LUA_HEADERS})
# Debian's module_paths patch makes luaconf.h include the multiarch triplet for package.path;
# the embedded Lua has no package library in use (Redis's sandbox), so any name does.
file(WRITE ${RLSIM_LUA_HEADERS}/lua5.1-deb-multiarch.h
     "#define DEB_HOST_MULTIARCH \"wasm32-emscripten\"\n")
target_include_directories(rlsim_lua51 SYSTEM PUBLIC ${RLSIM_LUA_HEADERS})
target_compile_definitions(rlsim_lua51 PRIVATE LUA_USE_POSIX)
# cjson and bit, the Lua libraries Redis embeds that rlsim loads (src/redis/lua_engine.cpp): lua-cjson
# 2.1.0 from Debian's source package (RLSIM_LUA_CJSON_SOURCE_DIR), the BitOp API written for this
# build (src/web/compat/lua_bit.cpp: Debian's archive does not serve lua-bitop's source), and the
# two headers Debian's -dev packages generate.
set(RLSIM_LUA_CJSON_SOURCE_DIR "" CACHE PATH "lua-cjson 2.1.0 sources, Debian's source package lua-cjson")
if(NOT EXISTS "${RLSIM_LUA_CJSON_SOURCE_DIR}/lua_cjson.c")
  message(FATAL_ERROR "RLSIM_LUA_CJSON_SOURCE_DIR must name the lua-cjson source package's folder "
                      "(src/web/build.sh fetches it), not '${RLSIM_LUA_CJSON_SOURCE_DIR}'")
endif()
add_library(rlsim_lua_libs STATIC ${RLSIM_LUA_CJSON_SOURCE_DIR}/lua_cjson.c
            ${RLSIM_LUA_CJSON_SOURCE_DIR}/strbuf.c ${RLSIM_LUA_CJSON_SOURCE_DIR}/fpconv.c
            ${CMAKE_CURRENT_SOURCE_DIR}/src/web/compat/lua_bit.cpp)
# As Redis builds it: cjson also sets its global table.
target_compile_definitions(rlsim_lua_libs PRIVATE ENABLE_CJSON_GLOBAL)
target_link_libraries(rlsim_lua_libs PUBLIC rlsim_lua51)
target_compile_options(rlsim_lua_libs PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${RLSIM_EH_FLAGS}> -mtail-call)
file(WRITE ${RLSIM_LUA_HEADERS}/lua-cjson.h "extern int luaopen_cjson(lua_State*);\n")
file(WRITE ${RLSIM_LUA_HEADERS}/lua-bitop.h "extern int luaopen_bit(lua_State*);\n")
set(RLSIM_LUA rlsim_lua_libs rlsim_lua51)

# Every C++ file: exceptions on (emscripten turns catching off by default): WebAssembly's own
# (RLSIM_WASM_EXCEPTIONS, the default: 6-26% less CPU than emscripten's JavaScript-based ones on
# the page's presets over 100 ms, the same reports; Debian's Chromium and Node 20 run them; the crash an
# earlier measurement met on products-autoscale.json was the 5 MiB stack, now 16 MiB:
# docs/performance.md#the-pages-engine-webassembly), coroutines' symmetric transfer as
# WebAssembly tail calls, and C++20's <coroutine> from src/web/compat (the libc++ of emscripten
# 3.1.6 has only <experimental/coroutine>).
add_compile_options($<$<COMPILE_LANGUAGE:CXX>:${RLSIM_EH_FLAGS}> -mtail-call)
include_directories(BEFORE SYSTEM ${CMAKE_CURRENT_SOURCE_DIR}/src/web/compat)
add_link_options(${RLSIM_EH_FLAGS} -mtail-call)
# CMake 3.25 knows no WHOLE_ARCHIVE for emscripten's linker, which takes GNU ld's flags.
set(CMAKE_LINK_LIBRARY_USING_WHOLE_ARCHIVE "LINKER:--whole-archive" "<LINK_ITEM>"
    "LINKER:--no-whole-archive")
set(CMAKE_LINK_LIBRARY_USING_WHOLE_ARCHIVE_SUPPORTED TRUE)
