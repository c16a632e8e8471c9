/** The browser tab's title: "<page> · Vigil". */
export function setPageTitle(page: string | null): void {
  document.title = page ? `${page} · Vigil` : 'Vigil'
}
