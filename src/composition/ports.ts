/**
 * A module's deps with these optional ports made required: the composition root declares its
 * deps objects so, and the compiler refuses one built without them (no port is filled later).
 */
export type Filled<T, K extends keyof T> = T & { [P in K]-?: NonNullable<T[P]> }
