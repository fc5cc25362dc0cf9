import clearData from "./clear-data.ts";

export const usersRoutes = { clearData };
