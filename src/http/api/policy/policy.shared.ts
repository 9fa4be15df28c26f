/** The OpenAPI tag of every policy route (the rules, the playground and the dry run). */
export const tags = ['policy'];
