export default { id: "beta", setup() {} };
