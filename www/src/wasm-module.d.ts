// An edge runtime's import of a .wasm file is a compiled module.
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
