// cytoscape-fcose ships no types: it is a cytoscape extension (`cytoscape.use(fcose)`).
declare module 'cytoscape-fcose' {
  const fcose: (cy: unknown) => void;
  export default fcose;
}
