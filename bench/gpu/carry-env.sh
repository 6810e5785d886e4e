# Sourced by bench/gpu/run.sh and bench/gpu/peer.sh: unpacks a carried runtime (scripts/gpu-carry.sh: .gpu/,
# scripts/gpu-peer-carry.sh: .gpu-peer/) under $WORK without touching the system (the Vulkan loader is extracted
# there and found through LD_LIBRARY_PATH), then picks the NVIDIA Vulkan driver.
#   unpack_carry DIR   sets NODE (the carried node) and exports RELPOS_WEBGPU (the carried webgpu package's index.js),
#                      LD_LIBRARY_PATH (carried libstdc++ if node or dawn.node needs it; the loader); unpacks GLVND into
#                      / when libGLdispatch is missing (root, dpkg). GPU_BENCH_CARRIED_LOADER=1: the carried loader
#                      even when the system has one.
#   pick_icd           an explicit VK_ICD_FILENAMES / VK_DRIVER_FILES wins; else NVIDIA's ICD where it is; prints it.
#   unxz_to FILE.xz DEST   xz, else Python's lzma.
unxz_to() {
  if command -v xz >/dev/null; then xz -dc "$1" > "$2"
  else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"; fi
}

unpack_carry() {
  local C=$1
  echo "== unpacking $C/ into $WORK"
  [ -f "$C/MANIFEST" ] && head -4 "$C/MANIFEST"
  unxz_to "$C/node.xz" "$WORK/node" && chmod +x "$WORK/node"
  mkdir -p "$WORK/webgpu/dist/linux-x64"
  cp "$C/webgpu/index.js" "$C/webgpu/package.json" "$WORK/webgpu/"
  unxz_to "$C/dawn.node.xz" "$WORK/webgpu/dist/linux-x64/dawn.node"
  NODE="$WORK/node"
  export RELPOS_WEBGPU="$WORK/webgpu/index.js"
  echo "== system: $(ldd --version 2>&1 | head -1)"
  # dawn.node needs GLIBC 2.34 and GLIBCXX 3.4.30: when node or the binding will not load with the system's
  # libstdc++, the carried one (Debian 12's) goes first on the library path.
  dawn_loads() { "$NODE" -e "require('$WORK/webgpu/dist/linux-x64/dawn.node')" 2>"$WORK/dawn-load.err"; }
  if ! "$NODE" --version >/dev/null 2>&1 || ! dawn_loads; then
    echo "== node or dawn.node does not load with the system libraries ($(head -c 300 "$WORK/dawn-load.err" 2>/dev/null)); using the carried libstdc++/libgcc_s"
    mkdir -p "$WORK/lib"
    for f in "$C"/lib/*.xz; do unxz_to "$f" "$WORK/lib/$(basename "$f" .xz)"; done
    export LD_LIBRARY_PATH="$WORK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    dawn_loads || echo "== dawn.node still does not load: $(head -c 600 "$WORK/dawn-load.err")"
  fi
  # The NVIDIA ICD (libGLX_nvidia.so.0) needs GLVND's libGLdispatch: unpack the carried .debs into / when the
  # machine lacks it (GPU machines here are handed out bare and given back after the run).
  if [ -d "$C/gl" ] && ! (ldconfig -p 2>/dev/null | grep 'libGLdispatch.so.0 ' >/dev/null) && [ "$(id -u)" = 0 ] && command -v dpkg >/dev/null; then
    echo "== no libGLdispatch.so.0: unpacking the carried GLVND .debs into /"
    for f in "$C"/gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
  fi
  if [ -n "${GPU_BENCH_CARRIED_LOADER:-}" ] || ! (ldconfig -p 2>/dev/null | grep 'libvulkan.so.1 ' >/dev/null); then
    echo "== extracting the carried libvulkan1.deb (system libvulkan.so.1: $(ldconfig -p 2>/dev/null | grep -c 'libvulkan.so.1 ') found)"
    mkdir -p "$WORK/vulkan"
    if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$C/libvulkan1.deb" "$WORK/vulkan"
    else # a .deb is an ar archive holding data.tar.xz: unpack it with Python
      python3 - "$C/libvulkan1.deb" "$WORK/vulkan" <<'PY'
import io, sys, tarfile
data = open(sys.argv[1], 'rb').read()
at = 8
while at < len(data):
    name, size = data[at:at + 16].decode().strip(), int(data[at + 48:at + 58])
    if name.startswith('data.tar'):
        tarfile.open(fileobj=io.BytesIO(data[at + 60:at + 60 + size])).extractall(sys.argv[2])
    at += 60 + size + (size & 1)
PY
    fi
    export LD_LIBRARY_PATH="$WORK/vulkan/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
}

pick_icd() {
  if [ -z "${VK_ICD_FILENAMES:-}" ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    local icd
    for icd in /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; do
      if [ -f "$icd" ]; then
        echo "== Vulkan ICD: $icd"; cat "$icd"; echo
        [ "$icd" != /usr/share/vulkan/icd.d/nvidia_icd.json ] && [ "$icd" != /etc/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"
        break
      fi
    done
  fi
  echo "== VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-} VK_DRIVER_FILES=${VK_DRIVER_FILES:-} LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
}
