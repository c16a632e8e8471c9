declare module '*.sql' {
  const text: string
  export default text
}

// Files embedded with `import … with { type: 'file' | 'text' }`.
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string
  export default path
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string
  export default path
}
declare module '*/web/install.sh' {
  const text: string
  export default text
}
declare module '*/web/site.css' {
  const text: string
  export default text
}
declare module '*/web/favicon.svg' {
  const text: string
  export default text
}
