// The project list of the design card: every package and every app is a Vitest project.
export default ['packages/*', 'apps/*'];
